#!/usr/bin/env node
import { exitProcess, main } from '#dist/main.js';

const code = await main(process.argv.slice(2));
// Let pending stdout writes drain before exiting (a large export piped to a slow reader).
process.exitCode = code;
// Then end through process.exit, never by letting the emptied event loop end the process: Node then
// closes the signal handlers (the default, death by the signal, is back) tens of milliseconds before
// the process is gone, and a Ctrl-C or SIGTERM just after the summary would end it by the signal
// (-2 rather than an exit code). A signal once the work is done changes nothing: the command's code.
process.once('beforeExit', () => exitProcess(code));
if (code !== 0) setImmediate(() => exitProcess(code));
