// How the numbers of a page view are kept and rounded. Times are whole milliseconds and scroll
// depths hundredths of a percent, so that every sum is an exact integer and the rollups agree with
// the raw rows to the last digit; every ratio is rounded half away from zero, as the API documents.

/** timeOnPage in seconds → whole milliseconds. */
export function toMilliseconds(seconds: number): number {
  return roundDecimal(seconds * 1000);
}

/** A percentage 0 to 100 → hundredths of a percent (0 to 10000). */
export function toCentiPercent(percent: number): number {
  return roundDecimal(percent * 100);
}

// 0.285 * 100 is 28.499999999999996 in binary floating point: reading the product back at 15
// significant digits first gives the decimal rounding a person expects (29).
function roundDecimal(value: number): number {
  return Math.round(Number(value.toPrecision(15)));
}

/**
 * `numerator / denominator` rounded half away from zero to `decimals` places, computed on integers
 * so that no binary fraction can tip a half the wrong way. Both are non-negative integers; 0 when
 * the denominator is 0 (the API answers 0 when there are none).
 */
export function roundRatio(numerator: number, denominator: number, decimals: number): number {
  if (
    !Number.isSafeInteger(numerator) ||
    !Number.isSafeInteger(denominator) ||
    numerator < 0 ||
    denominator < 0
  ) {
    throw new RangeError(`roundRatio needs non-negative integers, got ${numerator} / ${denominator}`);
  }
  if (denominator === 0) return 0;
  const scale = 10n ** BigInt(decimals);
  const n = BigInt(numerator) * scale;
  const d = BigInt(denominator);
  const rounded = (2n * n + d) / (2n * d);
  return Number(rounded) / Number(scale);
}

/** `part / whole × 100`, one decimal. */
export function percentage(part: number, whole: number): number {
  return roundRatio(part * 100, whole, 1);
}
