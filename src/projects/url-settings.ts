// The rules of a project's article URL settings: a URL pattern of known tokens and a
// time zone Intl knows. Projects validate them when created or updated; the import validates what a
// site's configuration gives; content/article-url.ts fills the pattern in.

export const URL_PATTERN_TOKENS = [':slug', ':year', ':month', ':day', ':section'] as const;
export const DEFAULT_URL_PATTERN = '/:slug';
export const DEFAULT_TIME_ZONE = 'UTC';

/** Why a URL pattern is refused, or null: a path starting with `/` made of known tokens and URL-safe text. */
export function urlPatternProblem(pattern: string): string | null {
  if (!pattern.startsWith('/')) return "must start with '/'";
  if (pattern.length > 200) return 'must be at most 200 characters';
  if (!pattern.includes(':slug')) return 'must contain :slug, so that every article has its own path';
  const unknown = pattern
    .match(/:[a-z_]+/gi)
    ?.find((token) => !(URL_PATTERN_TOKENS as readonly string[]).includes(token));
  if (unknown !== undefined) return `unknown token ${unknown}: use ${URL_PATTERN_TOKENS.join(', ')}`;
  if (/[\s?#\\]|\/\//.test(pattern))
    return 'must be a path without spaces, query, fragment or empty segments';
  return null;
}

/** Names already asked about: building a DateTimeFormat costs about 60 µs, and every article URL asks. */
const knownTimeZones = new Map<string, boolean>();

/** Whether a name is an IANA time zone that Intl knows (`Europe/Lisbon`, `UTC`). */
export function isTimeZone(name: string): boolean {
  const known = knownTimeZones.get(name);
  if (known !== undefined) return known;
  let answer = name.trim() !== '';
  if (answer) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: name });
    } catch {
      answer = false;
    }
  }
  // Names come from projects' settings and imported sites: few, but not trusted to be few.
  if (knownTimeZones.size >= 1000) knownTimeZones.clear();
  knownTimeZones.set(name, answer);
  return answer;
}
