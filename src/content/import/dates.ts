// Dates as blogs write them: ISO 8601 (Folio, Hugo, Jekyll's "2024-01-15 10:00:00 +0100"), the
// month-name forms of Astro's templates ("Jul 08 2024", "July 8, 2024") and of RFC 2822
// ("Mon, 08 Jul 2024 10:00:00 +0000"), and "2024/01/15". A date or time without a zone is UTC, or
// the site's time zone when one is given (Hugo's timeZone, Jekyll's timezone), so an import never
// depends on the zone of the machine that runs it.

const ISO_DATE_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)? ?([Zz]|[+-]\d{1,2}(?::?\d{2})?)?)?$/;

const SLASH_DATE_RE = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const WEEKDAY = '(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\\.?,?\\s+)?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const TIME = '(?:,?\\s+(?:at\\s+)?(\\d{1,2}):(\\d{2})(?::(\\d{2}))?\\s*(am|pm)?)?';
const ZONE = '(?:\\s*(z|utc|gmt|(?:gmt|utc)?[+-]\\d{2}:?\\d{2}))?';
// "Jul 08 2024", "July 8, 2024", "Mon Jul 08 2024 10:00:00 GMT+0000" (Date#toString without its zone name).
const MONTH_FIRST_RE = new RegExp(
  `^${WEEKDAY}${MONTH}\\s+${DAY},?\\s+(\\d{4})${TIME}${ZONE}(?:\\s+\\(.*\\))?$`,
  'i',
);
// "8 July 2024", "Mon, 08 Jul 2024 10:00:00 +0000".
const DAY_FIRST_RE = new RegExp(`^${WEEKDAY}${DAY}\\s+${MONTH},?\\s+(\\d{4})${TIME}${ZONE}$`, 'i');

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  millis?: number;
  zone?: string;
  /** The IANA zone a wall time without `zone` is read in; UTC when absent. */
  timeZone?: string;
}

/**
 * Date#parse alone is not enough: it rolls 2024-02-30 over into March and reads a
 * time without an offset as local time, which would make imports depend on the host's zone.
 */
function toIso({
  year,
  month,
  day,
  hour = 0,
  minute = 0,
  second = 0,
  millis = 0,
  zone,
  timeZone,
}: DateParts): string | null {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (zone !== undefined && !/^(z|utc|gmt)$/i.test(zone)) {
    const zoneMatch = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
    if (!zoneMatch) return null;
    const zoneHours = Number(zoneMatch[2]);
    const zoneMinutes = zoneMatch[3] === undefined ? 0 : Number(zoneMatch[3]);
    if (zoneHours > 23 || zoneMinutes > 59) return null;
    offsetMinutes = (zoneMatch[1] === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  const wall = date.getTime();
  if (!Number.isFinite(wall)) return null;
  const time =
    zone === undefined && timeZone !== undefined
      ? wallTimeToUtc(wall, timeZone)
      : wall - offsetMinutes * 60_000;
  if (!Number.isFinite(time)) return null;
  return new Date(time).toISOString();
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at an instant, in milliseconds (Europe/Lisbon in April: +3 600 000). */
function zoneOffset(time: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(time)).map((p) => [p.type, p.value]));
  const asUtc = new Date(0);
  asUtc.setUTCFullYear(Number(parts['year']), Number(parts['month']) - 1, Number(parts['day']));
  asUtc.setUTCHours(Number(parts['hour']), Number(parts['minute']), Number(parts['second']), 0);
  return asUtc.getTime() - (time - (((time % 1000) + 1000) % 1000));
}

/**
 * The instant whose wall-clock time in `timeZone` is `wall` (a wall time written as if UTC). The
 * offset is taken at the first guess and checked again there, so that a time near a change of
 * offset lands on the right side; a wall time skipped by a spring-forward reads as after the change.
 */
function wallTimeToUtc(wall: number, timeZone: string): number {
  const first = wall - zoneOffset(wall, timeZone);
  const second = wall - zoneOffset(first, timeZone);
  return second === first ? first : wall - zoneOffset(second, timeZone);
}

function twelveHour(hour: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return hour;
  if (hour < 1 || hour > 12) return 99;
  return (hour % 12) + (meridiem.toLowerCase() === 'pm' ? 12 : 0);
}

/** An ISO 8601 date or date-time, normalised to UTC with milliseconds; null when it is not one. A value without an offset is read in `timeZone` (default UTC). */
export function parseIsoDate(value: string, timeZone?: string): string | null {
  const match = ISO_DATE_RE.exec(value);
  if (!match) return null;
  return toIso({
    year: Number(match[1]),
    month: Number(match[2]),
    day: Number(match[3]),
    hour: match[4] === undefined ? 0 : Number(match[4]),
    minute: match[5] === undefined ? 0 : Number(match[5]),
    second: match[6] === undefined ? 0 : Number(match[6]),
    millis: match[7] === undefined ? 0 : Number(`${match[7]}00`.slice(0, 3)),
    zone: match[8],
    timeZone,
  });
}

/** Any date form of the module comment, normalised to UTC with milliseconds; null when it is none. A value without a zone is read in `timeZone` (default UTC). */
export function parseDate(text: string, timeZone?: string): string | null {
  const value = text.trim().replace(/\s+/g, ' ');
  const iso = parseIsoDate(value, timeZone);
  if (iso !== null) return iso;
  const slash = SLASH_DATE_RE.exec(value);
  if (slash)
    return toIso({ year: Number(slash[1]), month: Number(slash[2]), day: Number(slash[3]), timeZone });
  const monthFirst = MONTH_FIRST_RE.exec(value);
  const dayFirst = monthFirst ? null : DAY_FIRST_RE.exec(value);
  const match = monthFirst ?? dayFirst;
  if (!match) return null;
  const [monthName, day] = monthFirst ? [match[1], match[2]] : [match[2], match[1]];
  const hour = match[4] === undefined ? 0 : twelveHour(Number(match[4]), match[7]);
  return toIso({
    year: Number(match[3]),
    month: MONTHS.indexOf(monthName.slice(0, 3).toLowerCase()) + 1,
    day: Number(day),
    hour,
    minute: match[5] === undefined ? 0 : Number(match[5]),
    second: match[6] === undefined ? 0 : Number(match[6]),
    zone: match[8]?.replace(/^(gmt|utc)(?=[+-])/i, ''),
    timeZone,
  });
}

export const DATE_FORMS = 'e.g. 2024-05-01, 2024-05-01T09:30:00Z or Jul 08 2024';
