// Which reader a folder needs: a generator's layout recognised by its profile (in the order of
// SITE_PROFILES, the most specific first), else Folio's own folder of Markdown files.
// ReadOptions.format forces one by name; an unknown name is refused with the list of names.
import { ImportValidationError, type ReadOptions } from '../records.ts';
import { astroProfile } from './astro.ts';
import { docusaurusProfile } from './docusaurus.ts';
import { eleventyProfile } from './eleventy.ts';
import { hugoProfile } from './hugo.ts';
import { jekyllProfile } from './jekyll.ts';
import { nextjsProfile } from './nextjs.ts';
import type { SiteProfile } from './profile.ts';

/**
 * The generators whose layout is recognised, tried in this order (each a module like hugo.ts); a
 * site may hold another generator's marker files (an Astro site may have a content/ folder, and
 * Next.js's blog starter a _posts/ folder as Jekyll's), so the profiles with a config file of their
 * own come first, Next.js before Jekyll, and a profile's detect() checks its own config file first.
 */
export const SITE_PROFILES: readonly SiteProfile[] = [
  docusaurusProfile,
  astroProfile,
  nextjsProfile,
  eleventyProfile,
  hugoProfile,
  jekyllProfile,
];

/** `folio`: today's folder of Markdown files with tags.yaml. */
export const FOLIO_FORMAT = 'folio';

export function formatNames(): string[] {
  return [FOLIO_FORMAT, ...SITE_PROFILES.map((profile) => profile.name)];
}

/** The profile `format` names, or undefined for Folio's folder; throws for an unknown name. */
export function profileByName(format: string): SiteProfile | undefined {
  if (format === FOLIO_FORMAT) return undefined;
  const profile = SITE_PROFILES.find((candidate) => candidate.name === format);
  if (profile === undefined) {
    throw new ImportValidationError([
      {
        file: format,
        line: 1,
        message: `unknown format ${JSON.stringify(format)}: use one of ${formatNames().join(', ')}`,
      },
    ]);
  }
  return profile;
}

/** The profile `format` names, else the first that recognises the folder; undefined: Folio's own folder. */
export async function detectProfile(
  path: string,
  options: ReadOptions = {},
): Promise<SiteProfile | undefined> {
  if (options.format !== undefined) return profileByName(options.format);
  for (const candidate of SITE_PROFILES) if (await candidate.detect(path)) return candidate;
  return undefined;
}
