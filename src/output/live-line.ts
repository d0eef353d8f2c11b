import type { IO } from '../core/index.js';

/** A status line on stderr (ora's spinner), rewritten in place; only when stderr is a terminal. */
export interface LiveLine {
  /** Renders the text again now. */
  refresh(): void;
  /** Prints a line of its own above the live line (a message while it runs). */
  note(text: string): void;
  /** Ends with a final line. */
  succeed(text: string): void;
  /** Removes the line (before an error or warning is printed, or at the end). */
  stop(): void;
}

const QUIET = (io: IO): LiveLine => ({
  refresh: () => undefined,
  note: (text) => void io.stderr.write(`${text}\n`),
  succeed: () => undefined,
  stop: () => undefined,
});

/**
 * `render()` gives the text; it is drawn at once, every `intervalMs`, and on refresh(). ora is loaded
 * only for a terminal, so a piped or scripted run does not pay its start-up time and memory.
 */
export async function startLiveLine(io: IO, render: () => string, intervalMs: number): Promise<LiveLine> {
  // A terminal that reports no width (a pty nobody sized: `script`, `docker run -t`) would make ora
  // clear an endless number of lines on every frame.
  if (!io.stderrIsTTY || (io.stderr as Partial<NodeJS.WriteStream>).columns === 0) return QUIET(io);
  const { default: ora } = await import('ora');
  const spinner = ora({
    stream: io.stderr,
    isEnabled: true,
    discardStdin: false,
    color: io.colorEnabled ? 'cyan' : false,
    text: render(),
  }).start();
  const timer = setInterval(() => (spinner.text = render()), intervalMs);
  timer.unref();
  return {
    refresh() {
      spinner.text = render();
      spinner.render(); // now, not at the next spinner frame: a short run still shows its progress
    },
    note(text) {
      spinner.clear();
      io.stderr.write(`${text}\n`);
      spinner.render();
    },
    succeed(text) {
      clearInterval(timer);
      spinner.succeed(text);
    },
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}
