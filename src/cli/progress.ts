// A progress bar on an interactive terminal for long imports; nothing elsewhere (pipes, CI, --json).
import cliProgress from 'cli-progress';

export interface Progress {
  update: (done: number, total: number) => void;
  stop: () => void;
}

export function createProgress(enabled: boolean): Progress {
  if (!enabled || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'importing [{bar}] {value}/{total} articles', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
