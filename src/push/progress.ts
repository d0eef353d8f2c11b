import type { IO } from '../cli/io.js';

export interface Progress {
  stop(): void;
}

/** One line on stderr, rewritten in place a few times a second; only on a terminal. */
export function startProgress(io: IO | undefined, render: () => string, intervalMs = 250): Progress {
  if (!io?.stderrIsTTY) return { stop: () => undefined };
  const width = Math.max(20, io.terminalWidth - 1);
  const draw = (): void => {
    io.stderr.write(`\r\u001b[2K${render().slice(0, width)}`);
  };
  draw();
  const timer = setInterval(draw, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      io.stderr.write('\r\u001b[2K');
    },
  };
}
