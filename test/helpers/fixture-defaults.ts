import { test } from './emulator-fixture.js';

// A setup file, run before each test file. A worker runs file after file in one process (isolate: false)
// and keeps the modules they import, the fixture among them; a file's top-level `test.override` replaces
// the fixture's options for every file after it in that worker. Each file starts from the defaults.
test.override({ harnessOptions: {} });
