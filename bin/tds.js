#!/usr/bin/env node
import { writeSync } from 'node:fs';
import { TDS_VERSION, VERSION_FLAGS } from '#dist/bundle/version.js';

const argv = process.argv.slice(2);
// `tds --version` alone is answered before the rest of tds is loaded (about Node's own start-up). A write
// that fails (`> /dev/full`) goes the whole way instead, which reports it as every command does.
if (argv.length === 1 && VERSION_FLAGS.includes(argv[0] ?? '') && writesVersion()) process.exit(0);

const { exitProcess, main } = await import('#dist/bundle/main.js');
const code = await main(argv);
// Let pending stdout writes drain before exiting (a large export piped to a slow reader).
process.exitCode = code;
// Then end through process.exit, never by letting the emptied event loop end the process: Node then
// closes the signal handlers (the default, death by the signal, is back) tens of milliseconds before
// the process is gone, and a Ctrl-C or SIGTERM just after the summary would end it by the signal
// (-2 rather than an exit code). A signal once the work is done changes nothing: the command's code.
process.once('beforeExit', () => exitProcess(code));
if (code !== 0) setImmediate(() => exitProcess(code));

function writesVersion() {
  try {
    writeSync(1, `${TDS_VERSION}\n`);
    return true;
  } catch (error) {
    // a reader that has gone (`tds --version | true`) is a normal end, as for every command
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EPIPE') process.exit(0);
    return false;
  }
}
