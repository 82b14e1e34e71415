// The base URL every SEO answer builds its links on: the `baseUrl` parameter, else the project's
// siteUrl. An article's URL is the base URL plus the article's path, and an
// article's relative links and images are made absolute against that URL.
import { articlePath, isTimeZone, type UrlArticle } from '../content/public.ts';
import type { Project } from '../db/schema.ts';
import { ValidationError } from '../errors.ts';

/** Longest base URL once normalised: with a slug of up to 200 characters, a sitemap `loc` stays under 2,048. */
export const baseUrlMaxLength = 1024;

const example = 'such as https://blog.example.com';

/**
 * The base URL in normal form (lower-case scheme and host, punycode, percent-encoded path) without
 * trailing slash; a 400 on `baseUrl` when it is malformed, or absent with no project siteUrl.
 */
export function resolveBaseUrl(param: string | undefined, project: Pick<Project, 'site_url'>): string {
  if (param !== undefined) {
    const problem = baseUrlProblem(param);
    if (problem !== null) throw new ValidationError([{ field: 'baseUrl', message: problem }]);
    return normalizeBaseUrl(param);
  }
  const siteUrl = project.site_url;
  if (siteUrl === null || siteUrl.trim() === '') {
    throw new ValidationError([
      {
        field: 'baseUrl',
        message: `is required because the project has no siteUrl: give an absolute http(s) URL ${example}`,
      },
    ]);
  }
  if (baseUrlProblem(siteUrl) !== null) {
    throw new ValidationError([
      {
        field: 'baseUrl',
        message: `is required because the project's siteUrl is not a usable base URL: give an absolute http(s) URL ${example}`,
      },
    ]);
  }
  return normalizeBaseUrl(siteUrl);
}

/** Why `value` cannot be a base URL, or null when it can. */
export function baseUrlProblem(value: string): string | null {
  const problem = httpUrlProblem(value);
  if (problem !== null) return problem;
  if (value.includes('?') || value.includes('#')) {
    return "must not have a query string or a fragment: article URLs are built by appending each article's path";
  }
  if (normalizeBaseUrl(value).length > baseUrlMaxLength)
    return `must be at most ${baseUrlMaxLength} characters`;
  return null;
}

/** Why `value` cannot be a public http(s) URL, or null when it can. */
export function httpUrlProblem(value: string): string | null {
  const url = URL.parse(value.trim());
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return `must be an absolute http or https URL ${example}`;
  }
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  return null;
}

function normalizeBaseUrl(value: string): string {
  const url = new URL(value.trim());
  return (url.origin + url.pathname).replace(/\/+$/, '');
}

/** What a project's article URLs are made of: its URL pattern and the time zone of its dates. */
export type UrlSettings = Pick<Project, 'url_pattern' | 'time_zone'>;

/**
 * The settings as `articlePath` may use them: a time zone Intl does not know (only a hand-edited
 * row can hold one) reads as UTC, so that no stored value can turn an answer into a 500.
 */
export function urlSettingsOf(project: UrlSettings): UrlSettings {
  const timeZone = isTimeZone(project.time_zone) ? project.time_zone : 'UTC';
  return { url_pattern: project.url_pattern, time_zone: timeZone };
}

/**
 * An article's URL: `baseUrl` plus its path (its own, else the project's URL pattern filled in),
 * percent-encoded as a URL must be (a path with spaces or non-ASCII letters stays a valid `loc`).
 */
export function articleUrl(baseUrl: string, settings: UrlSettings, article: UrlArticle): string {
  const path = articlePath(settings, article);
  const joined = baseUrl + (path.startsWith('/') ? path : `/${path}`);
  return URL.parse(joined)?.href ?? joined;
}

/**
 * `value` made absolute against `against` when it is relative (`/a.png`, `a.png`, `//cdn/a.png`,
 * `#top`); an absolute URL of any scheme is returned unchanged, and so is anything unparseable.
 */
export function absoluteUrl(value: string, against: string): string {
  if (URL.canParse(value)) return value;
  return URL.parse(value, against)?.href ?? value;
}
