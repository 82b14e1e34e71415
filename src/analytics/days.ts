// UTC days as `YYYY-MM-DD` strings, the unit of every rollup, salt and retention rule of analytics.

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDay(instant: Date | number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** The UTC day `offset` days after `day` (negative: before). */
export function shiftDay(day: string, offset: number): string {
  const [year, month, date] = day.split('-').map(Number);
  return utcDay(Date.UTC(year, month - 1, date + offset));
}

/** Days up to this one are closed on `today`: no page view can be created for them any more. */
export function lastClosedDay(today: string): string {
  // Asked by every tracking write: the answer is kept for the day asked last.
  if (today !== closedMemo.today) closedMemo = { today, closed: shiftDay(today, -2) };
  return closedMemo.closed;
}

let closedMemo = { today: '', closed: '' };
