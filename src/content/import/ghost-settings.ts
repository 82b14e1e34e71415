// What a Ghost export says about the site: its time zone and publication logo from
// the `settings` table, and Ghost's default route. The export never holds the site's URL (every
// stored URL starts with `__GHOST_URL__`): it is the one the import is given, or none.
import { isTimeZone } from '../article-url.ts';
import type { Ctx, Path } from './check-kit.ts';
import { resolved } from './ghost-html.ts';
import type { SiteSettings } from './records.ts';

type GhostRow = Record<string, unknown>;

/**
 * Ghost's default routes.yaml: `collections: { /: { permalink: /{slug}/ } }`. A site with its own
 * routes.yaml (not in the export) has other URLs: the project's URL pattern can be changed.
 */
export const GHOST_URL_PATTERN = '/:slug/';

/** The public path Ghost gives a post or page of that slug under its default routes. */
export function ghostPath(slug: string): string {
  return GHOST_URL_PATTERN.replace(':slug', slug);
}

/** The site URL the import was given, without trailing slash, or null. */
export function siteUrlOption(value: string | undefined): string | null {
  const trimmed = value?.trim().replace(/\/+$/, '') ?? '';
  return trimmed === '' ? null : trimmed;
}

export function ghostSettings(
  ctx: Ctx,
  rows: GhostRow[],
  settingsPath: Path,
  siteUrl: string | null,
): SiteSettings {
  const settings: SiteSettings = {
    siteUrl,
    urlPattern: GHOST_URL_PATTERN,
    timeZone: null,
    // Every Ghost post has at least one author of its own.
    defaultAuthor: null,
    logoUrl: null,
  };
  rows.forEach((row, i) => {
    const value = typeof row['value'] === 'string' ? row['value'].trim() : '';
    if (value === '') return;
    if (row['key'] === 'timezone') {
      if (isTimeZone(value)) settings.timeZone = value;
      else {
        ctx.warnings.push({
          file: ctx.file,
          line: ctx.locate([...settingsPath, i, 'value']),
          kind: 'invalid-setting',
          message: `settings timezone ${JSON.stringify(value)} is not an IANA time zone: the project's is kept`,
        });
      }
    }
    // The publication logo, which Ghost puts in its own structured data as the publisher's.
    if (row['key'] === 'logo') settings.logoUrl = resolved(value, siteUrl);
  });
  return settings;
}
