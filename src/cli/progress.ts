// A progress bar on an interactive terminal for long imports, one phase after another (reading the
// source, then importing it); nothing elsewhere (pipes, CI, --json) and nothing for a few articles.
import cliProgress from 'cli-progress';

export interface Progress {
  /** Whether a bar is shown: when not, callers need not count what they would report. */
  enabled: boolean;
  /** `done` of the `total` articles of `phase` (`reading`, `importing`). */
  update: (phase: string, done: number, total: number) => void;
  stop: () => void;
}

/** Sources of fewer articles than this are read and imported too fast to need a bar. */
const fewArticles = 50;

export function createProgress(enabled: boolean): Progress {
  if (!enabled || !process.stderr.isTTY) return { enabled: false, update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{phase} [{bar}] {value}/{total} articles', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let shown: string | null = null;
  return {
    enabled: true,
    update(phase, done, total) {
      if (total < fewArticles) return;
      if (shown !== phase) {
        if (shown !== null) bar.stop();
        bar.start(total, 0, { phase });
        shown = phase;
      }
      bar.update(done);
    },
    stop() {
      if (shown !== null) bar.stop();
      shown = null;
    },
  };
}
