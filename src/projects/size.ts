// Human-readable storage sizes in decimal units (1 KB = 1000 B), as the contract writes them.

// The contract writes sizes in B, KB, MB and GB only (a terabyte is `1000 GB`); parseSize also
// reads TB, so that a limit can be given in it.
const units = ['B', 'KB', 'MB', 'GB', 'TB'];
const largestWrittenUnit = units.indexOf('GB');

/** `0 B`, `512 B`, `1.5 KB`, `12.34 MB`, `1 GB`: the largest unit with a value ≥ 1, ≤ 2 decimals. */
export function formatBytes(bytes: number): string {
  let unit = 0;
  while (unit < largestWrittenUnit && bytes >= 1000 ** (unit + 1)) unit++;
  let value = roundHalfAwayFromZero(bytes / 1000 ** unit, 2);
  // Rounding may carry a value up to 1000 of its unit (999.999 KB → 1000 KB): move to the next.
  if (value >= 1000 && unit < largestWrittenUnit) {
    unit++;
    value = roundHalfAwayFromZero(bytes / 1000 ** unit, 2);
  }
  return `${value} ${units[unit]}`;
}

/** Parses `500 MB`, `1.5GB`, `2000 B`; null when the text is not a size. */
export function parseSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB)\s*$/i.exec(text);
  if (!match) return null;
  const unit = units.indexOf(match[2].toUpperCase());
  return Math.round(Number(match[1]) * 1000 ** unit);
}

export function roundHalfAwayFromZero(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  // The epsilon corrects binary representation error (1.005 * 100 = 100.49999…).
  const scaled = Math.abs(value) * factor;
  const rounded = Math.floor(scaled + 0.5 + Number.EPSILON * scaled);
  return (Math.sign(value) * rounded) / factor || 0;
}
