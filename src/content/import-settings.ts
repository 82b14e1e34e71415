// What an import takes from a site's configuration for its project: the site URL,
// URL pattern, time zone, default author and logo fill the project's settings that are unset (or
// still the default); a project's own different value is kept and reported. Also the site URL and
// URL settings the moved blog had, from which a migrated article's old URL (its feed id) is built.
import type { Executor, Project } from '../db/schema.ts';
import { updateProjectRow } from '../projects/queries.ts';
import { type DefaultAuthor, defaultAuthorOf, settingsIssues } from '../projects/service.ts';
import { DEFAULT_TIME_ZONE, DEFAULT_URL_PATTERN } from '../projects/url-settings.ts';
import { type UrlSettings, usableUrlSettings } from './article-url.ts';
import {
  type ContentSource,
  type ImportProblem,
  ImportValidationError,
  type SiteSettings,
} from './import/records.ts';
import type { StreamedSource } from './import/digest.ts';

/** Where a setting's problem or report points: the settings have no file of their own here. */
export const settingsFile = 'site settings';

/** The site settings an import brings: the source's, with the import's own site URL (`--site-url`) first. */
export function importedSettings(
  source: Pick<ContentSource, 'settings'>,
  siteUrl: string | undefined,
): Partial<SiteSettings> {
  const settings = { ...source.settings };
  if (siteUrl !== undefined) settings.siteUrl = siteUrl;
  if (typeof settings.siteUrl === 'string') settings.siteUrl = withoutTrailingSlash(settings.siteUrl);
  return settings;
}

function withoutTrailingSlash(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/**
 * Settings that could not be stored (a bad URL, pattern or time zone): the import's own site URL
 * (`--site-url`) is refused, naming it; a value from the site's configuration (a Ghost logo that
 * is a site path because no site URL was given) is left out with an `invalid-setting` warning,
 * since the articles can be imported without it. Returns the settings that can be stored.
 */
export function checkImportedSettings(
  settings: Partial<SiteSettings>,
  optionSiteUrl: string | undefined,
  warnings: ImportProblem[],
): Partial<SiteSettings> {
  const issues = settingsIssues({
    siteUrl: settings.siteUrl,
    logoUrl: settings.logoUrl,
    urlPattern: settings.urlPattern,
    timeZone: settings.timeZone,
    defaultAuthor: settings.defaultAuthor,
  });
  const usable = { ...settings };
  const refused: ImportProblem[] = [];
  for (const issue of issues) {
    const problem = { file: settingsFile, line: 1, message: `${issue.field} ${issue.message}` };
    if (issue.field === 'siteUrl' && optionSiteUrl !== undefined) refused.push(problem);
    else {
      warnings.push({ ...problem, message: `${problem.message}: left out`, kind: 'invalid-setting' });
      delete usable[issue.field as keyof SiteSettings];
    }
  }
  if (refused.length > 0) throw new ImportValidationError(refused);
  return usable;
}

interface SettingRule {
  name: keyof SiteSettings;
  column: 'site_url' | 'logo_url' | 'url_pattern' | 'time_zone' | 'default_author';
  /** The project's value when it has none of its own. */
  unset: string | null;
  stored(value: NonNullable<SiteSettings[keyof SiteSettings]>): string;
  same(stored: string, given: string): boolean;
}

const asText = (value: unknown) => value as string;
const rules: SettingRule[] = [
  {
    name: 'siteUrl',
    column: 'site_url',
    unset: null,
    stored: asText,
    same: (a, b) => withoutTrailingSlash(a) === withoutTrailingSlash(b),
  },
  { name: 'urlPattern', column: 'url_pattern', unset: DEFAULT_URL_PATTERN, stored: asText, same: equal },
  { name: 'timeZone', column: 'time_zone', unset: DEFAULT_TIME_ZONE, stored: asText, same: equal },
  {
    name: 'defaultAuthor',
    column: 'default_author',
    unset: null,
    stored: (value) => {
      const author = value as DefaultAuthor;
      return JSON.stringify({ name: author.name, image: author.image ?? null });
    },
    same: equal,
  },
  { name: 'logoUrl', column: 'logo_url', unset: null, stored: asText, same: equal },
];

function equal(a: string, b: string): boolean {
  return a === b;
}

/**
 * Writes the imported settings the project does not have yet (in the import's transaction, so a
 * dry run writes nothing); returns the project as it is then and the settings applied, and adds a
 * `project-setting-kept` warning for each the project holds otherwise.
 */
export async function applyImportedSettings(
  trx: Executor,
  project: Project,
  settings: Partial<SiteSettings>,
  warnings: ImportProblem[],
): Promise<{ project: Project; applied: string[] }> {
  const changes: Partial<Project> = {};
  const applied: string[] = [];
  for (const rule of rules) {
    const given = settings[rule.name];
    if (given === undefined || given === null) continue;
    const value = rule.stored(given);
    const current = project[rule.column];
    if (current === rule.unset) {
      changes[rule.column] = value;
      applied.push(rule.name);
    } else if (current !== null && !rule.same(current, value)) {
      warnings.push({
        file: settingsFile,
        line: 1,
        kind: 'project-setting-kept',
        message: `${rule.name}: the project keeps its own ${shown(current)}; the site says ${shown(value)} (change it with folio projects update)`,
      });
    }
  }
  if (applied.length === 0) return { project, applied };
  const updatedAt = new Date().toISOString();
  await updateProjectRow(trx, project.id, { ...changes, updated_at: updatedAt });
  return { project: { ...project, ...changes, updated_at: updatedAt }, applied };
}

function shown(value: string | null): string {
  return value === null ? 'none' : value;
}

/**
 * The site the blog moved from, for the URLs its feed used as ids: the import's site URL and URL
 * settings, else the project's.
 */
export function formerSite(
  settings: Partial<SiteSettings>,
  project: Project,
): { base: string | null; urls: UrlSettings } {
  const base = settings.siteUrl ?? project.site_url;
  return {
    base: base === null ? null : withoutTrailingSlash(base),
    urls: usableUrlSettings({
      url_pattern: settings.urlPattern ?? project.url_pattern,
      time_zone: settings.timeZone ?? project.time_zone,
    }),
  };
}

/** The author of articles that name none: the project's default author, else its name. */
export function fallbackAuthor(project: Project): { author: DefaultAuthor; isDefault: boolean } {
  const author = defaultAuthorOf(project);
  return author === null
    ? { author: { name: project.name, image: null }, isDefault: false }
    : { author, isDefault: true };
}

/**
 * The warnings of articles that name no author: each gets the project's default author, else the
 * project's name, and the report says so, unless the reader already did for that file (a site's
 * own default author, which the reader filled in).
 */
export function authorWarnings(
  source: Pick<StreamedSource, 'warnings' | 'articles'>,
  project: Project,
): ImportProblem[] {
  const warned = new Set(
    (source.warnings ?? []).filter((w) => w.kind === 'default-author').map((w) => w.file),
  );
  const { author, isDefault } = fallbackAuthor(project);
  const message = isDefault
    ? `no author: the project's default author '${author.name}' is used`
    : `no author, and the project has no default author: the project's name '${author.name}' is used (set one with folio projects update --author)`;
  return source.articles
    .filter((article) => !article.hasAuthor && !warned.has(article.file))
    .map((article) => ({ file: article.file, line: 1, kind: 'default-author', message }));
}

/** Whether the source is a blog moved from another generator (its URLs were its feed ids). */
export function isMigration(source: Pick<ContentSource, 'generator'>): boolean {
  return source.generator !== undefined && source.generator !== 'folio';
}
