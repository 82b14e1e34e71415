// The article list and single article: parameter rules beyond the schema (select, tag names,
// search terms), the queries, and the mapping of rows to the API's shape.
import type { Db } from '../db/database.ts';
import type { ArticleVariantTable, Executor, Project } from '../db/schema.ts';
import { type FieldIssue, NotFoundError, ValidationError } from '../errors.ts';
import {
  type ArticleFilter,
  type ArticleRow,
  type ArticleTagRow,
  findArticleBySlug,
  findTagIdsByNames,
  findTagsOfArticles,
  findVariantsOfArticles,
} from './article-queries.ts';
import {
  readArticlePage,
  readSearchPageOnSqlite,
  type SearchSettings,
  searchSlotsOf,
} from './article-page.ts';
import { reportedStatus } from './article-status.ts';
import { articlePath, articleUrl, usableUrlSettings, type UrlSettings } from './article-url.ts';
import { groupBy } from './lists.ts';
import { previewedArticleId } from './previews.ts';
import { slugOfTagName } from './tag-slugs.ts';
import { isRestricted, teaserContent, teaserHtml } from './members-teaser.ts';
import type { ArticleListQueryType, ArticleView, SelectableField } from './schemas.ts';
import { articleListDefaults, listDefaultFields, selectableFields, singleDefaultFields } from './schemas.ts';

const listDefaults: SelectableField[] = [...listDefaultFields];
const singleDefaults: SelectableField[] = [...singleDefaultFields];

export interface FieldSet {
  fields: Set<SelectableField>;
  tagColor: boolean;
  tagIcon: boolean;
}

/** Applies a `select` JSON object to the default fields; any malformed part is a 400 on `select`. */
export function resolveSelect(select: string | undefined, defaults: SelectableField[]): FieldSet {
  const fields = new Set<SelectableField>(defaults);
  if (select !== undefined) {
    const parsed = parseSelect(select);
    if ('issue' in parsed) throw new ValidationError([parsed.issue]);
    for (const [name, value] of parsed.entries) {
      if (value) fields.add(name);
      else fields.delete(name);
    }
  }
  const tagColor = fields.has('tagColor');
  const tagIcon = fields.has('tagIcon');
  if (tagColor || tagIcon) fields.add('tags');
  return { fields, tagColor, tagIcon };
}

/** The problem with a `select` value, if any, as an issue naming every selectable field. */
export function selectIssue(select: string): FieldIssue | null {
  const parsed = parseSelect(select);
  return 'issue' in parsed ? parsed.issue : null;
}

function parseSelect(select: string): { entries: Array<[SelectableField, boolean]> } | { issue: FieldIssue } {
  const allowed = `; selectable fields: ${selectableFields.join(', ')}`;
  const notAnObject = {
    issue: { field: 'select', message: `must be a JSON object such as {"content":false}${allowed}` },
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(select);
  } catch {
    return notAnObject;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return notAnObject;
  const problems: string[] = [];
  const entries: Array<[SelectableField, boolean]> = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (!(selectableFields as readonly string[]).includes(name))
      problems.push(`'${name}' is not a selectable field`);
    else if (typeof value !== 'boolean') problems.push(`'${name}' must be true or false`);
    else entries.push([name as SelectableField, value]);
  }
  if (problems.length > 0) return { issue: { field: 'select', message: problems.join('; ') + allowed } };
  return { entries };
}

/** `a, B` and repeated parameters → distinct lower-cased, trimmed names. */
export function tagNameKeys(values: string[] | undefined): string[] | null {
  if (values === undefined) return null;
  const keys = values.flatMap((value) => value.split(',')).map((name) => name.trim().toLowerCase());
  return [...new Set(keys.filter((name) => name !== ''))];
}

export function searchTerms(search: string | undefined): string[] {
  return search === undefined ? [] : search.split(/\s+/u).filter((term) => term !== '');
}

/**
 * For a public key only published articles exist: asking for any other status, or
 * for unpublished articles, is a 400 rather than an empty list, so that a mistake shows at once.
 */
function publishedOnlyIssues(query: { status?: string; published?: boolean }): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (query.status !== undefined && query.status !== 'published')
    issues.push({
      field: 'status',
      message: 'must be published: a public key reads only published articles',
    });
  if (query.published === false)
    issues.push({ field: 'published', message: 'must be true: a public key reads only published articles' });
  return issues;
}

function requirePublishedQuery(query: { status?: string; published?: boolean }): void {
  const issues = publishedOnlyIssues(query);
  if (issues.length > 0) throw new ValidationError(issues);
}

export async function listArticles(
  db: Db,
  project: Project,
  params: ArticleListQueryType,
  publishedOnly = false,
  search?: SearchSettings,
) {
  const query = { ...articleListDefaults, ...params };
  if (publishedOnly) requirePublishedQuery(query);
  const select = resolveSelect(query.select, listDefaults);
  const now = new Date().toISOString();
  const names = {
    tags: tagNameKeys(query.tags),
    tagsAll: tagNameKeys(query.tagsAll),
    excludeTags: tagNameKeys(query.excludeTags),
  };
  const empty = Object.entries(names).filter(([, keys]) => keys !== null && keys.length === 0);
  if (empty.length > 0) {
    throw new ValidationError(empty.map(([field]) => ({ field, message: 'must name at least one tag' })));
  }
  const { tags: any, tagsAll: all } = names;
  const exclude = names.excludeTags ?? [];
  const tagIds = await findTagIdsByNames(db.kysely, project.id, [
    ...new Set([...(any ?? []), ...(all ?? []), ...exclude]),
  ]);
  const filter: ArticleFilter = {
    projectId: project.id,
    now,
    published: query.published,
    status: publishedOnly ? 'published' : query.status,
    searchTerms: searchTerms(query.search),
    anyTagIds: any === null ? null : any.flatMap((name) => tagIds.get(name) ?? []),
    // A name that matches no tag makes "all of" impossible: no article can match.
    allTagIds:
      all === null ? null : all.every((name) => tagIds.has(name)) ? all.map((name) => tagIds.get(name)!) : [],
    excludeTagIds: exclude.flatMap((name) => tagIds.get(name) ?? []),
  };
  const page = { offset: (query.page - 1) * query.limit, limit: query.limit };
  const order = { sort: query.sort, order: query.order };
  const withHtml = select.fields.has('html');
  // A public key's html of a members-only article is rendered from its teaser, read from content.
  const columns = { content: select.fields.has('content') || (publishedOnly && withHtml), html: withHtml };
  const read = { filter, order, page, columns, project };
  if (filter.searchTerms.length === 0)
    return finish(await readArticlePage(db, read, (compiled) => db.readOffThread(compiled)));
  // Searches: off the event loop on SQLite; on PostgreSQL a few at a time, each in a transaction
  // of one snapshot with a statement timeout.
  if (db.dialect === 'sqlite')
    return finish(await readSearchPageOnSqlite(db, read, (compiled) => db.readOffThread(compiled, 'search')));
  return finish(
    await searchSlotsOf(db, search).run((run, oneSnapshot) => readArticlePage(db, read, run, oneSnapshot)),
  );

  async function finish({ rows, total }: { rows: ArticleRow[]; total: number }) {
    const data = await toViews(db.kysely, project, rows, select, now, publishedOnly);
    return {
      data,
      meta: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
    };
  }
}

export async function getArticle(
  db: Db,
  project: Project,
  slug: string,
  selectParam: string | undefined,
  publishedOnly = false,
  preview?: string,
  /** A write's transaction, to answer with what it wrote before it commits. */
  executor: Executor = db.kysely,
) {
  const select = resolveSelect(selectParam, singleDefaults);
  // A valid preview token reads its own article as a secret key would (any status, in full).
  const previewed = preview === undefined ? null : await previewedArticleId(db, project, preview);
  const now = new Date().toISOString();
  const withHtml = select.fields.has('html');
  const row = await findArticleBySlug(
    executor,
    db.dialect,
    project.id,
    slug,
    select.fields.has('content') || (publishedOnly && withHtml),
    withHtml,
  );
  const readsAll = !publishedOnly || (row !== undefined && row.id === previewed);
  if (!row || (!readsAll && reportedStatus(row.status, row.published_at, now) !== 'published'))
    throw new NotFoundError(`Article '${slug}' not found`);
  const [article] = await toViews(executor, project, [row], select, now, !readsAll);
  return article;
}

async function toViews(
  executor: Executor,
  project: Project,
  rows: ArticleRow[],
  select: FieldSet,
  now: string,
  publishedOnly: boolean,
): Promise<ArticleView[]> {
  const ids = rows.map((row) => row.id);
  const [tags, variants] = await Promise.all([
    select.fields.has('tags') ? findTagsOfArticles(executor, ids) : [],
    select.fields.has('variants') ? findVariantsOfArticles(executor, ids) : [],
  ]);
  const tagsByArticle = groupBy(tags, (tag) => tag.article_id);
  const variantsByArticle = groupBy(variants, (variant) => variant.article_id);
  const site = { base: project.site_url?.replace(/\/+$/, '') ?? null, settings: usableUrlSettings(project) };
  return rows.map((row) =>
    toView(row, select, {
      now,
      project,
      site,
      tags: tagsByArticle.get(row.id) ?? [],
      variants: variantsByArticle.get(row.id) ?? [],
      // Readers without access (public keys) see a members-only article's teaser only.
      teaser: publishedOnly && isRestricted(row.visibility),
    }),
  );
}

interface ViewContext {
  now: string;
  project: Project;
  /** The site URL without trailing slash (null: none), and the project's URL settings. */
  site: { base: string | null; settings: UrlSettings };
  tags: ArticleTagRow[];
  variants: ArticleVariantTable[];
  /** Content shows only the part before the members-only marker. */
  teaser: boolean;
}

interface ViewSource extends ViewContext {
  row: ArticleRow;
  status: ReturnType<typeof reportedStatus>;
  tagColor: boolean;
  tagIcon: boolean;
}

interface StoredAuthor {
  name: string;
  slug: string;
  image: string | null;
  title: string | null;
  url: string | null;
}

/** The stored authors, or (none stored: an article of one author) that author with a slug from the name. */
function authorsOf(row: ArticleRow): StoredAuthor[] {
  const stored = JSON.parse(row.authors || '[]') as StoredAuthor[];
  if (stored.length > 0)
    return stored.map((a) => ({
      name: a.name,
      slug: a.slug,
      image: a.image ?? null,
      title: a.title ?? null,
      url: a.url ?? null,
    }));
  return [
    {
      name: row.author_name,
      slug: slugOfTagName(row.author_name),
      image: row.author_image,
      title: null,
      url: null,
    },
  ];
}

/**
 * Each selectable field's value in an article's API shape, from its row (a table, not branches).
 * `tagColor` and `tagIcon` are no fields of their own: they add members to each of `tags`.
 */
const fieldValues: Record<
  Exclude<(typeof selectableFields)[number], 'tagColor' | 'tagIcon'>,
  (source: ViewSource) => unknown
> = {
  title: ({ row }) => row.title,
  slug: ({ row }) => row.slug,
  content: ({ row, teaser }) => (teaser ? teaserContent(row.content ?? '') : row.content),
  html: ({ row, teaser }) => (teaser ? teaserHtml(row.content ?? '') : (row.html ?? null)),
  excerpt: ({ row }) => row.excerpt,
  coverImage: ({ row }) => row.cover_image,
  coverImageAlt: ({ row }) => row.cover_image_alt,
  published: ({ status }) => status === 'published',
  status: ({ status }) => status,
  viewCount: ({ row }) => Number(row.view_count),
  wordCount: ({ row }) => row.word_count,
  characterCount: ({ row }) => row.character_count,
  readTimeMinutes: ({ row }) => row.read_time_minutes,
  author: ({ row }) => ({ name: row.author_name, image: row.author_image }),
  lastUpdatedBy: ({ row }) =>
    row.last_updated_by_name === null
      ? null
      : { name: row.last_updated_by_name, image: row.last_updated_by_image },
  tags: ({ tags, tagColor, tagIcon }) =>
    tags.map((tag) => ({
      id: tag.id,
      name: tag.name,
      ...(tagColor ? { color: tag.color } : {}),
      ...(tagIcon ? { icon: tag.icon } : {}),
    })),
  variants: ({ variants, teaser }) =>
    variants.map((variant) => ({
      id: variant.id,
      key: variant.key,
      title: variant.title,
      excerpt: variant.excerpt,
      content: teaser && variant.content !== null ? teaserContent(variant.content) : variant.content,
    })),
  project: ({ project }) => ({ id: project.id, name: project.name, slug: project.slug }),
  createdAt: ({ row }) => row.created_at,
  updatedAt: ({ row }) => row.updated_at,
  publishedAt: ({ row }) => row.published_at,
  url: ({ row, site }) => articleUrl(site.base, site.settings, row),
  path: ({ row, site }) => articlePath(site.settings, row),
  aliases: ({ row }) => JSON.parse(row.aliases || '[]') as string[],
  authors: ({ row }) => authorsOf(row),
  visibility: ({ row }) => row.visibility,
  tiers: ({ row }) => JSON.parse(row.tiers || '[]') as string[],
  seo: ({ row }) => (row.seo ? (JSON.parse(row.seo) as unknown) : null),
  section: ({ row }) => row.section,
  guid: ({ row }) => row.guid,
  version: ({ row }) => Number(row.version),
};

function toView(row: ArticleRow, { fields, tagColor, tagIcon }: FieldSet, context: ViewContext): ArticleView {
  const source: ViewSource = {
    ...context,
    row,
    status: reportedStatus(row.status, row.published_at, context.now),
    tagColor,
    tagIcon,
  };
  const view: Record<string, unknown> = { id: row.id };
  // In the order of selectableFields, as the answers have always listed them.
  for (const field of selectableFields) {
    if (field === 'tagColor' || field === 'tagIcon' || !fields.has(field)) continue;
    view[field] = fieldValues[field](source);
  }
  return view as ArticleView;
}
