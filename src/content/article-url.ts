// Where an article lives on its site: its own path when it has one (from a
// permalink, `url` or the generator's rules), else the project's URL pattern with the date tokens
// read from publishedAt in the project's time zone; its URL is the base URL plus that path.
// Relative links and images of an article resolve against that URL, so page-bundle images work.

/** The URL settings' rules live with projects (which validate them); filled in here. */
export {
  DEFAULT_TIME_ZONE,
  DEFAULT_URL_PATTERN,
  isTimeZone,
  URL_PATTERN_TOKENS,
  urlPatternProblem,
} from '../projects/url-settings.ts';
import { DEFAULT_TIME_ZONE, DEFAULT_URL_PATTERN, isTimeZone } from '../projects/url-settings.ts';

export interface UrlSettings {
  url_pattern: string;
  time_zone: string;
}

export interface UrlArticle {
  slug: string;
  path: string | null;
  published_at: string | null;
  created_at: string;
  /** The first folder of the source file under the content root (Hugo's section), or null. */
  section?: string | null;
}

/**
 * The settings as stored, but a time zone this runtime does not know read as UTC: a path is never
 * an error (a zone is checked when stored, but another Node version may know fewer).
 */
export function usableUrlSettings(settings: UrlSettings): UrlSettings {
  return isTimeZone(settings.time_zone) ? settings : { ...settings, time_zone: DEFAULT_TIME_ZONE };
}

const calendars = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (year, month, day, zero-padded) of an instant in a time zone. */
export function calendarDate(iso: string, timeZone: string): { year: string; month: string; day: string } {
  let format = calendars.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    calendars.set(timeZone, format);
  }
  const parts = Object.fromEntries(
    format.formatToParts(new Date(iso)).map((part) => [part.type, part.value]),
  );
  return { year: parts['year'], month: parts['month'], day: parts['day'] };
}

/** The article's public path: its own, else the pattern filled in (dates from publishedAt, else createdAt). */
export function articlePath(settings: UrlSettings, article: UrlArticle): string {
  if (article.path !== null) return article.path;
  const pattern = settings.url_pattern;
  if (pattern === DEFAULT_URL_PATTERN) return `/${article.slug}`;
  const date = calendarDate(article.published_at ?? article.created_at, settings.time_zone);
  return pattern
    .replace(/:year/g, date.year)
    .replace(/:month/g, date.month)
    .replace(/:day/g, date.day)
    .replace(/:section/g, article.section ?? '')
    .replace(/:slug/g, article.slug)
    .replace(/\/{2,}/g, '/');
}

/** The article's URL: `base` (a baseUrl or site URL without trailing slash) plus its path; the path alone without a base. */
export function articleUrl(base: string | null, settings: UrlSettings, article: UrlArticle): string {
  const path = articlePath(settings, article);
  return base === null ? path : `${base}${path}`;
}

/** A link or image of an article made absolute against the article's URL (`/x` against the site root). */
export function resolveAgainstArticle(href: string, articleUrlValue: string): string {
  try {
    return new URL(href, articleUrlValue).href;
  } catch {
    return href;
  }
}
