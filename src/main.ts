import { CommanderError } from 'commander';
import { processIO, type IO } from './core/io.js';
import { EXIT, TdsError, exitCodeOf, type ExitCode, exitProcess } from './core/errors.js';
import type { Context } from './core/context.js';
import { hintsOf } from './commands/hints.js';
import { OutputWriteError } from './output/write-error.js';
import { TDS_VERSION, VERSION_FLAGS } from './core/version.js';

// The one place that turns an outcome into an exit code and calls process.exit.

export { exitProcess };

export async function main(argv: string[]): Promise<ExitCode> {
  const io = processIO({ noColor: argv.includes('--no-color') });
  const controller = new AbortController();

  // SIGTERM (a service manager stopping tds) is handled as Ctrl-C is, and exits 143; a second signal ends at once
  let interrupts = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    interrupts += 1;
    if (interrupts === 1 && name === 'SIGTERM') terminated = true;
    if (interrupts > 1) exitProcess(terminated ? EXIT.terminated : EXIT.interrupted);
    // the reason says which: a command that ends cleanly on Ctrl-C (sync --follow) ends as interrupted on SIGTERM
    controller.abort(new TdsError('INTERRUPTED', name === 'SIGTERM' ? 'terminated' : 'interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `tds … | head` closes stdout early: that is a normal end, not a failure. Any other failed write to
  // stdout (a full disk: `> /dev/full`) ends the run at once with one line and exit 1, whatever the
  // command was doing: its output is lost, and a command still waiting to write would never finish.
  // (A write that failed may also reject a promise the command awaits: the line is printed once.)
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    process.exit(
      stdoutFailureReported ? EXIT.unexpected : report(new OutputWriteError('stdout', error), { io, signal: controller.signal }),
    );
  });

  return run(argv, io, controller.signal);
}

/** Runs the program on `io` until it ends (`signal` interrupts it) and returns the exit code: main(), and tests in-process. */
export async function run(argv: string[], io: IO, signal: AbortSignal): Promise<ExitCode> {
  // commander reads its options' variables (TDS_BASE_URL, TDS_PROFILE, …) from process.env as parsing
  // starts; a run in-process (the tests) stands its own environment in for process.env only until run's
  // first await, which is now the tree's loading: the environment seen here is the one parsing reads
  const env = process.env;
  let verbose = false;
  const ctx: Context = {
    io,
    signal,
    verbose: (line) => {
      if (verbose) io.stderr.write(`${line}\n`);
    },
    isVerbose: () => verbose,
  };
  // `tds --version` alone is answered before the command tree is built (bin/tds.js answers it sooner still)
  if (argv.length === 1 && VERSION_FLAGS.includes(argv[0]!)) {
    io.stdout.write(`${TDS_VERSION}\n`);
    return EXIT.ok;
  }
  // the top-level help builds the root and each command's line of it; a run that names one command, the root
  // and that command; the whole tree (every command's options and help) only a run that uses it: help of a
  // command by `tds help CMD`, completion, an unknown command
  const { helpProgram, onlyTopLevelHelp, programFor } = await import('./commands/root.js');
  const program = onlyTopLevelHelp(argv)
    ? helpProgram(ctx)
    : ((await programFor(ctx, argv)) ?? (await import('./program.js')).buildProgram(ctx));
  program.hook('preAction', (_root, action) => {
    verbose = Boolean(action.optsWithGlobals().verbose);
  });

  try {
    // bare `tds`: the top-level help, with its examples, as an answer (not an error)
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT.ok;
    }
    await withProcessEnv(env, () => program.parseAsync(argv, { from: 'user' }));
    return EXIT.ok;
  } catch (error) {
    return report(error, ctx);
  }
}

/** `start()` with `env` as process.env (the same object in a process of its own) until it returns. */
function withProcessEnv<T>(env: NodeJS.ProcessEnv, start: () => T): T {
  const own = process.env;
  process.env = env;
  try {
    return start();
  } finally {
    process.env = own;
  }
}

/** Set by a SIGTERM that came first: the run ends as interrupted, with 143. */
let terminated = false;

/** Set once the failure to write stdout has been reported (stdout's 'error' event must not repeat it). */
let stdoutFailureReported = false;

function report(error: unknown, ctx: Pick<Context, 'io' | 'signal'>): ExitCode {
  const { stderr, color } = ctx.io;
  if (error instanceof OutputWriteError && error.target === 'stdout') {
    if (stdoutFailureReported) return EXIT.unexpected;
    stdoutFailureReported = true;
  }
  if (error instanceof CommanderError) {
    // commander has already printed its message (or the help/version text).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) {
      return EXIT.ok;
    }
    return EXIT.usage;
  }
  if (ctx.signal.aborted && (!(error instanceof TdsError) || error.code === 'INTERRUPTED')) {
    const detail =
      error instanceof TdsError && error.message !== 'interrupted' && error.message !== 'terminated' ? `: ${error.message}` : '';
    stderr.write(`tds: ${terminated ? 'terminated (SIGTERM)' : 'interrupted'}${detail}\n`);
    const hint = error instanceof TdsError ? hintsOf(error) : undefined;
    if (hint) stderr.write(`hint: ${hint}\n`);
    return terminated ? EXIT.terminated : EXIT.interrupted;
  }
  if (error instanceof TdsError) {
    stderr.write(`${color.red('tds:')} ${error.message}\n`);
    const hint = hintsOf(error);
    if (hint) stderr.write(`${color.dim('hint:')} ${hint}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(`${color.red('tds: unexpected failure:')} ${message}\n`);
  stderr.write('hint: this is a bug in tds; please report it with the command you ran (without secrets)\n');
  return exitCodeOf(error);
}
