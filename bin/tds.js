#!/usr/bin/env node
import { exitProcess, main } from '#dist/main.js';

const code = await main(process.argv.slice(2));
// Let pending stdout writes drain before exiting (a large export piped to a slow reader).
process.exitCode = code;
if (code !== 0) setImmediate(() => exitProcess(code));
