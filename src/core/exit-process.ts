// Node's process.exit waits for the native calls running on libuv's thread pool to return. A DuckDB
// call that does not stop when interrupted (its parser never checks) would hold an interrupted run for
// as long as it runs, minutes for a pathological statement, whatever the user presses.

let stuck = 0;

/** A native call was given up after an interrupt and may still be running. */
export function noteStuckNativeWork(): void {
  stuck += 1;
}

/**
 * Ends the process with `code`. An interrupted run with native work still running ends by SIGINT
 * itself, as a program without a handler would (a shell reports 130 for it): the kernel ends every
 * thread at once, where process.exit would wait for them.
 */
export function exitProcess(code: number): never {
  const signal = code === 130 ? 'SIGINT' : code === 143 ? 'SIGTERM' : undefined;
  if (signal && stuck > 0) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code);
}
