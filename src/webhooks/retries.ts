// When a failed attempt is tried again: the delays after the first, second, … failure (by default
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 14 h, about 31.5 hours in all, so that a receiver down for a
// day still gets everything: config.ts, WEBHOOK_RETRY_DELAYS). Past the last one the delivery is
// marked failed. Each delay is spread by up to a fifth either way, so that the retries of many
// deliveries that failed together do not all arrive together.

/** The delay before attempt `attempts + 1` after `attempts` failed ones, or null: give up. */
export function retryDelayMs(
  attempts: number,
  delaysMs: readonly number[],
  random: () => number = Math.random,
): number | null {
  const base = delaysMs[attempts - 1];
  if (base === undefined) return null;
  return Math.max(0, Math.round(base * (0.8 + 0.4 * random())));
}
