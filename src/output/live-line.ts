import type { IO } from '../core/io.js';

/** A status line on stderr (ora's spinner), rewritten in place; only when stderr is a terminal. */
export interface LiveLine {
  /** Renders the text again now. */
  refresh(): void;
  /** Ends with a final line. */
  succeed(text: string): void;
  /** Removes the line (before an error or warning is printed, or at the end). */
  stop(): void;
}

const QUIET: LiveLine = { refresh: () => undefined, succeed: () => undefined, stop: () => undefined };

/**
 * `render()` gives the text; it is drawn at once, every `intervalMs`, and on refresh(). ora is loaded
 * only for a terminal, so a piped or scripted run does not pay its start-up time and memory.
 */
export async function startLiveLine(io: IO, render: () => string, intervalMs: number): Promise<LiveLine> {
  if (!io.stderrIsTTY) return QUIET;
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
