// SQL of articles: the filtered, sorted page of the list and its count (from the article sets, or
// the articles themselves), one article by slug, and the relations (tags, variants) of a set of
// articles.
import {
  type CompiledQuery,
  type ExpressionBuilder,
  type RawBuilder,
  type SelectQueryBuilder,
  sql,
} from 'kysely';
import { type Compiled, compiledFor } from '../db/compiled-query.ts';
import type { Db, DialectName } from '../db/database.ts';
import {
  articleContainsTerm,
  articleTextContains,
  ordinalAmong,
  type OrdinalFlags,
  ordinalFlagged,
} from '../db/dialect-sql.ts';
import type { ArticleTable, ArticleVariantTable, Database, Executor } from '../db/schema.ts';
import type { OrdinalSet } from './article-sets.ts';
import { hasReportedStatus, type ReportedStatus } from './article-status.ts';
import { groupBy } from './lists.ts';
import { searchKey } from './search-text.ts';
import type { ArticleSortField } from './schemas.ts';

export interface ArticleFilter {
  projectId: string;
  now: string;
  published?: boolean;
  status?: ReportedStatus;
  searchTerms: string[];
  /** Tag ids of which an article needs at least one; null when the filter is absent. */
  anyTagIds: string[] | null;
  /** Tag ids an article needs all of; null when absent. */
  allTagIds: string[] | null;
  excludeTagIds: string[];
}

export interface ArticleOrder {
  sort: ArticleSortField;
  order: 'asc' | 'desc';
}

/**
 * An article's view count: its row in article_views, or 0 before its first page view. On
 * PostgreSQL articles.id has the collation "C" and article_views.article_id the database's: the
 * ids are compared in the latter, so that the row is found by its key (compared in "C", every
 * article read scanned article_views: 5 ms each with 60,000 articles viewed).
 */
function viewCountOf(dialect: DialectName) {
  const id = dialect === 'postgres' ? sql`articles.id collate "default"` : sql`articles.id`;
  return sql<number>`coalesce((select v.view_count from article_views as v where v.article_id = ${id}), 0)`;
}

const sortColumns = {
  createdAt: 'articles.created_at',
  updatedAt: 'articles.updated_at',
  publishedAt: 'articles.published_at',
  title: 'articles.title_key',
  readTimeMinutes: 'articles.read_time_minutes',
  wordCount: 'articles.word_count',
} as const;

function sortColumnOf(sort: ArticleSortField, dialect: DialectName) {
  return sort === 'viewCount' ? viewCountOf(dialect) : sortColumns[sort];
}

/** Every column but `content`, which only a caller that shows it asks for, and the view count (summaryOf). */
const summaryColumns = [
  'articles.id',
  'articles.slug',
  'articles.title',
  'articles.excerpt',
  'articles.cover_image',
  'articles.cover_image_alt',
  'articles.status',
  'articles.published_at',
  'articles.created_at',
  'articles.updated_at',
  'articles.word_count',
  'articles.character_count',
  'articles.read_time_minutes',
  'articles.author_name',
  'articles.author_image',
  'articles.last_updated_by_name',
  'articles.last_updated_by_image',
  'articles.path',
  'articles.section',
  'articles.aliases',
  'articles.visibility',
  'articles.tiers',
  'articles.authors',
  'articles.seo',
  'articles.guid',
  'articles.version',
] as const;

/** The summary columns with the view count. */
function summaryOf(dialect: DialectName) {
  return [...summaryColumns, viewCountOf(dialect).as('view_count')] as const;
}

export type ArticleRow = Pick<
  ArticleTable,
  | 'id'
  | 'slug'
  | 'title'
  | 'excerpt'
  | 'cover_image'
  | 'cover_image_alt'
  | 'status'
  | 'published_at'
  | 'created_at'
  | 'updated_at'
  | 'word_count'
  | 'character_count'
  | 'read_time_minutes'
  | 'author_name'
  | 'author_image'
  | 'last_updated_by_name'
  | 'last_updated_by_image'
  | 'path'
  | 'section'
  | 'aliases'
  | 'visibility'
  | 'tiers'
  | 'authors'
  | 'seo'
  | 'guid'
  | 'version'
> & { view_count: number; content?: string; html?: string | null };

/**
 * How a page is found. `driven`: from the sets its filters match (trigram index, tag postings),
 * then sorted. `{ ordinals }`: the same from the matching articles' ordinals, known from the
 * article sets, each article still checked by itself (an import may have committed since the
 * sets were read). Both are right when few articles match. `walk`: along the sort index, each
 * article checked by itself (its search text, a probe of its tags), stopping at the page's end:
 * right when many match, since a page then lies near the start of the walk. `{ ids }`: these
 * articles, whose ids a narrower query of the page found (see articlePageIdsQuery). `{ members }`:
 * the matches are known exactly from the snapshot the page is read in (a search on PostgreSQL),
 * so an article is checked by its ordinal alone, among the matches or (`except`) not among the
 * others, whichever list is shorter; `walk` says whether the sort index is walked. `{ flagged }`:
 * the same, along the sort index, each article looked up in flags by its ordinal (the marks of a
 * long list, page-marks.ts; the caller checks that nothing changed since the matches were read).
 */
export type PagePlan =
  | 'driven'
  | 'walk'
  | { ordinals: number[] }
  | { ids: string[] }
  | { members: number[]; except: boolean; walk: boolean }
  | { flagged: OrdinalFlags };

function filtered<O>(
  query: SelectQueryBuilder<Database, 'articles', O>,
  dialect: DialectName,
  filter: ArticleFilter,
  planned: PagePlan = 'driven',
): SelectQueryBuilder<Database, 'articles', O> {
  let q = query.where('articles.project_id', '=', filter.projectId);
  if (typeof planned !== 'string' && 'ids' in planned) return q.where('articles.id', 'in', planned.ids);
  if (typeof planned !== 'string' && 'flagged' in planned)
    return q.where(ordinalFlagged(dialect, planned.flagged));
  if (typeof planned !== 'string' && 'members' in planned) {
    const among = ordinalAmong(dialect, planned.members);
    return q.where(planned.except ? sql<boolean>`not (${among})` : among);
  }
  const plan = typeof planned === 'string' ? planned : 'walk';
  if (typeof planned !== 'string' && 'ordinals' in planned)
    q = q.where(ordinalAmong(dialect, planned.ordinals));
  if (filter.status !== undefined) {
    const status = filter.status;
    q = q.where((eb) => hasReportedStatus(eb, status, filter.now));
  }
  if (filter.published !== undefined) {
    const published = filter.published;
    q = q.where((eb) =>
      published
        ? hasReportedStatus(eb, 'published', filter.now)
        : eb.not(hasReportedStatus(eb, 'published', filter.now)),
    );
  }
  for (const term of filter.searchTerms) {
    const key = searchKey(term);
    q = q.where(plan === 'walk' ? articleTextContains(dialect, key) : articleContainsTerm(dialect, key));
  }
  if (filter.anyTagIds !== null) {
    const ids = filter.anyTagIds;
    if (ids.length === 0) return q.where(sql<boolean>`1 = 0`);
    q = q.where((eb) =>
      plan === 'walk'
        ? eb.exists(tagsOfArticle(eb, ids))
        : eb('articles.id', 'in', articlesTaggedWith(eb, ids)),
    );
  }
  if (filter.allTagIds !== null) {
    const ids = filter.allTagIds;
    if (ids.length === 0) return q.where(sql<boolean>`1 = 0`);
    for (const id of ids)
      q = q.where((eb) =>
        plan === 'walk'
          ? eb.exists(tagsOfArticle(eb, [id]))
          : eb('articles.id', 'in', articlesTaggedWith(eb, [id])),
      );
  }
  if (filter.excludeTagIds.length > 0) {
    const ids = filter.excludeTagIds;
    q = q.where((eb) =>
      plan === 'walk'
        ? eb.not(eb.exists(tagsOfArticle(eb, ids)))
        : eb('articles.id', 'not in', articlesTaggedWith(eb, ids)),
    );
  }
  return q;
}

/** The article's own tags among these: a probe of the (article_id, tag_id) key. */
function tagsOfArticle(eb: ExpressionBuilder<Database, 'articles'>, tagIds: string[]) {
  return eb
    .selectFrom('article_tags')
    .select(sql`1`.as('one'))
    .whereRef('article_tags.article_id', '=', 'articles.id')
    .where('article_tags.tag_id', 'in', tagIds);
}

/**
 * The ids of articles carrying any of the tags: an uncorrelated set that both databases build once
 * from the tag index, instead of a correlated EXISTS per article (measured on 10,000 articles:
 * tagsAll and excludeTags about a third faster, tags unchanged).
 */
function articlesTaggedWith(eb: ExpressionBuilder<Database, 'articles'>, tagIds: string[]) {
  return eb
    .selectFrom('article_tags')
    .select('article_tags.article_id')
    .where('article_tags.tag_id', 'in', tagIds);
}

/**
 * Where a page lies in the list, and in which direction it is read: a page past the middle is
 * read from the end (the last page of a tag is then as quick to find as its first).
 */
export interface PageWindow {
  offset: number;
  limit: number;
  /** Read in the opposite order; the caller reverses the rows. */
  reverse: boolean;
}

/** The window of `page` in a list of `total` articles, read from whichever end is nearer. */
export function pageWindow(page: { offset: number; limit: number }, total: number): PageWindow {
  const fromEnd = Math.max(0, total - page.offset - page.limit);
  if (fromEnd >= page.offset) return { ...page, reverse: false };
  return { offset: fromEnd, limit: Math.min(page.limit, total - page.offset), reverse: true };
}

/** The filtered, sorted page of the list, as a query to run where the caller chooses. */
export function articlePageQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  order: ArticleOrder,
  page: { offset: number; limit: number; reverse?: boolean; after?: ListMark },
  withContent: boolean,
  plan: PagePlan,
  withHtml = false,
): CompiledQuery<ArticleRow> {
  let query = filtered(executor.selectFrom('articles').select(summaryOf(dialect)), dialect, filter, plan);
  if (withContent) query = query.select('articles.content') as typeof query;
  if (withHtml) query = query.select('articles.html') as typeof query;
  return ordered(query, dialect, order, page).compile() as CompiledQuery<ArticleRow>;
}

/**
 * The ids of the page only: on a deep page, the rows skipped are read for their sort key and
 * filters alone (PostgreSQL evaluates the select list, view count included, of every skipped
 * row; measured at `page=5000`: 70 ms for the page, against an index-only scan of its ids).
 */
export function articlePageIdsQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  order: ArticleOrder,
  page: { offset: number; limit: number; reverse?: boolean; after?: ListMark },
  plan: PagePlan,
): CompiledQuery<{ id: string }> {
  const query = filtered(executor.selectFrom('articles').select('articles.id'), dialect, filter, plan);
  return ordered(query, dialect, order, page).compile();
}

/**
 * The ids of a deep page of a filtered list from a mark, each article walked looked up among the
 * matches by its ordinal (`flagged`), with the project's version of the marks in the same
 * snapshot: the matches were read before, so the page is the list's only while that version is
 * still the one they were read at, which the caller checks.
 */
export function articleFlaggedPageIdsQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  order: { sort: MarkedSort; order: 'asc' | 'desc' },
  page: { offset: number; limit: number; reverse?: boolean; after?: ListMark },
  flagged: OrdinalFlags,
): CompiledQuery<{ id: string; version: number | string }> {
  const ids = ordered(
    filtered(executor.selectFrom('articles').select('articles.id'), dialect, filter, { flagged }),
    dialect,
    order,
    page,
  );
  return sql<{ id: string; version: number | string }>`select page.id,
      (select ${sql.ref(marksVersionColumn(order.sort))} from projects where projects.id = ${filter.projectId}) as version
    from (${ids}) as page`.compile(executor);
}

/**
 * Sorts read in two parts, each along an index, where the one sort key would be computed for every
 * article and sorted: by view count, the articles viewed (article_views' index of project, count
 * and article) and those never viewed (count 0, by id); by publication, the articles with a
 * publishedAt (its sort index) and those without (by id in the same index), always after. Only
 * for a filter without search or tags: a status filter is a probe of each article's row.
 */
export type SortPart = 'viewed' | 'unviewed' | 'dated' | 'undated';

/** The two parts of a sort in the order read, or null when the sort is one index walk. */
export function sortParts(order: ArticleOrder, reverse: boolean): [SortPart, SortPart] | null {
  const direction = reverse ? (order.order === 'asc' ? 'desc' : 'asc') : order.order;
  if (order.sort === 'viewCount')
    return direction === 'desc' ? ['viewed', 'unviewed'] : ['unviewed', 'viewed'];
  if (order.sort === 'publishedAt') return reverse ? ['undated', 'dated'] : ['dated', 'undated'];
  return null;
}

function sortPart(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  part: SortPart,
  direction: 'asc' | 'desc',
): SelectQueryBuilder<Database, 'articles', { id: string }> {
  if (part === 'viewed') {
    const byStatus = filter.status !== undefined || filter.published !== undefined;
    const viewed = executor
      .selectFrom('article_views as v')
      .select('v.article_id as id')
      .where('v.project_id', '=', filter.projectId)
      .where('v.view_count', '>', 0)
      .orderBy('v.view_count', direction)
      // In the order of articles.id, whose collation is "C" on PostgreSQL (the ties of a count
      // are then sorted apart when the database's collation differs).
      .orderBy(dialect === 'postgres' ? sql`v.article_id collate "C"` : sql`v.article_id`, direction);
    const article = executor
      .selectFrom('articles')
      .select(sql`1`.as('one'))
      .where(sql<boolean>`articles.id = v.article_id`);
    // (articles.id is the key of its table: compared in its collation, "C" on PostgreSQL.)
    // One builder type for every part: they differ by their tables only.
    return (byStatus ? viewed.where((eb) => eb.exists(filtered(article, dialect, filter))) : viewed) as never;
  }
  const articles = filtered(executor.selectFrom('articles').select('articles.id as id'), dialect, filter);
  if (part === 'dated')
    return articles
      .where('articles.published_at', 'is not', null)
      .orderBy('articles.published_at', direction)
      .orderBy('articles.id', direction);
  if (part === 'undated')
    return articles.where('articles.published_at', 'is', null).orderBy('articles.id', direction);
  // Compared in article_views' collation, as viewCountOf compares them: found by its key.
  const id = dialect === 'postgres' ? sql`articles.id collate "default"` : sql`articles.id`;
  const viewed = executor
    .selectFrom('article_views as v')
    .select(sql`1`.as('one'))
    .where(sql<boolean>`v.article_id = ${id}`)
    .where('v.view_count', '>', 0);
  return articles.where((eb) => eb.not(eb.exists(viewed))).orderBy('articles.id', direction);
}

/** The ids of a window of one part of a sort read in two (see SortPart). */
export function sortPartIdsQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  part: SortPart,
  direction: 'asc' | 'desc',
  page: { offset: number; limit: number },
): CompiledQuery<{ id: string }> {
  return sortPart(executor, dialect, filter, part, direction)
    .limit(page.limit)
    .offset(page.offset)
    .compile() as CompiledQuery<{ id: string }>;
}

/** The number of articles in one part of a sort read in two. */
export function sortPartCountQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  part: SortPart,
): CompiledQuery<{ count: number | string }> {
  const rows = sortPart(executor, dialect, filter, part, 'asc').clearOrderBy();
  return executor
    .selectFrom(rows.as('part'))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .compile();
}

/**
 * Sorts that a list's marks (page-marks.ts) can seek in: columns of a sort index that are never
 * null and change only with the content (view counts change without it).
 */
export const markedSorts = { createdAt: 'created_at', updatedAt: 'updated_at', title: 'title_key' } as const;

export type MarkedSort = keyof typeof markedSorts;

/** An article's place in a list sorted by a marked sort: its sort value and id. */
export interface ListMark {
  value: string;
  id: string;
}

/**
 * The places of the list's articles `step`, 2 × `step` … `count` × `step` articles after `after`
 * (or from the list's start), in one statement: each found by a seek from the one before and a
 * walk of `step` index entries. With the project's version the marks are kept by
 * (marksVersionColumn) read in the same statement: what page-marks.ts keeps.
 */
export function articleListMarksQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  order: { sort: MarkedSort; order: 'asc' | 'desc' },
  page: { reverse: boolean; after: ListMark | undefined },
  step: number,
  count: number,
  plan: 'walk' | { flagged: OrdinalFlags } = 'walk',
): CompiledQuery<ListMark & { version: number | string }> {
  const column = markedSorts[order.sort];
  const next = (after: ListMark | { value: RawBuilder<unknown>; id: RawBuilder<unknown> } | undefined) =>
    ordered(
      // Each article walked checked by itself (tags probed, as a page's walk probes them), or by
      // its ordinal among the matches.
      filtered(
        executor
          .selectFrom('articles')
          .select(['articles.id', sql<string>`${sql.ref(`articles.${column}`)}`.as('value')]),
        dialect,
        filter,
        plan,
      ),
      dialect,
      order,
      { offset: step - 1, limit: 1, reverse: page.reverse, after },
    );
  const fromPrevious = next({ value: sql.ref('m.value'), id: sql.ref('m.id') })
    .clearSelect()
    .select('articles.id');
  return sql<ListMark & { version: number | string }>`with recursive marks (n, id, value) as (
      select 1, first.id, first.value from ${next(page.after)} as first
      union all
      select m.n + 1, x.id, ${sql.ref(`x.${column}`)} from marks as m
        join articles as x on x.id = ${fromPrevious}
      where m.n < ${count}
    )
    select id, value, (select ${sql.ref(marksVersionColumn(order.sort))} from projects where projects.id = ${filter.projectId}) as version
    from marks order by n`.compile(executor);
}

/**
 * The version of a project that the marks of a list in this sort are kept by: any change moves an
 * article along updatedAt, and only some along the others (projects.order_version).
 */
export function marksVersionColumn(sort: MarkedSort): 'content_version' | 'order_version' {
  return sort === 'updatedAt' ? 'content_version' : 'order_version';
}

function ordered<O>(
  query: SelectQueryBuilder<Database, 'articles', O>,
  dialect: DialectName,
  order: ArticleOrder,
  page: {
    offset: number;
    limit: number;
    reverse?: boolean;
    /** A mark's place, or (for a mark found by the statement) expressions of it. */
    after?: ListMark | { value: RawBuilder<unknown>; id: RawBuilder<unknown> };
  },
): SelectQueryBuilder<Database, 'articles', O> {
  const flip = (direction: 'asc' | 'desc') => (direction === 'asc' ? 'desc' : 'asc');
  const direction = page.reverse ? flip(order.order) : order.order;
  if (page.after !== undefined) {
    // A seek along the sort index: the articles after the mark in the order read (only for a
    // marked sort, or the column named is unknown).
    const column = sql.ref(`articles.${markedSorts[order.sort as MarkedSort]}`);
    const after = sql<boolean>`(${column}, articles.id) ${sql.raw(direction === 'asc' ? '>' : '<')} (${page.after.value}, ${page.after.id})`;
    query = query.where(after);
  }
  // Null publishedAt sorts last in both orders: first when read from the end.
  if (order.sort === 'publishedAt')
    query = query.orderBy(sql`articles.published_at is null`, page.reverse ? 'desc' : 'asc');
  return query
    .orderBy(sortColumnOf(order.sort, dialect), direction)
    .orderBy('articles.id', direction)
    .limit(page.limit)
    .offset(page.offset);
}

/** Articles a walk is expected to read that are checked by themselves even when the matches are exact. */
export const shortWalk = 2_000;

/**
 * The plan of a page, from the number of matches: walk the sort index when the walk to the page's
 * end (matches spread evenly over the project) reads no more than twice as many articles as
 * match, else start from the matches: their ordinals when the article sets gave them. Without
 * the project's size, walk when the page's end is expected within 1/20 of the project. `exact`:
 * the matches were read in the page's own snapshot, so ordinals alone decide (see PagePlan).
 */
export function pagePlan(
  filter: ArticleFilter,
  total: number,
  page: { offset: number; limit: number },
  matches: { set: OrdinalSet; all: OrdinalSet } | null,
  exact = false,
  shortWalkRows = shortWalk,
): PagePlan {
  const filtersBySet =
    filter.searchTerms.length > 0 ||
    filter.anyTagIds !== null ||
    filter.allTagIds !== null ||
    filter.excludeTagIds.length > 0;
  if (!filtersBySet) return 'driven';
  if (matches === null) return total >= 20 * (page.offset + page.limit) ? 'walk' : 'driven';
  const walked = ((page.offset + page.limit) * matches.all.size) / Math.max(1, total);
  const walk = walked <= 2 * total;
  // A short walk checks its few articles by themselves: cheaper than sending a list of ordinals
  // (43,000 for a word in nine articles in ten and a tag in half: p50 68 ms in the search bench
  // on PostgreSQL, against 26 ms walking with checks).
  if (exact && !(walk && walked <= shortWalkRows)) {
    const except = 2 * total > matches.all.size;
    const members = except ? matches.all.minus(matches.set).ordinals() : matches.set.ordinals();
    return { members, except, walk };
  }
  return walk ? 'walk' : { ordinals: matches.set.ordinals() };
}

/**
 * The number of articles the filter matches, counted in the articles themselves: for the searches
 * that the article sets cannot count (article-matches.ts).
 */
export function articleCountQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
): CompiledQuery<{ count: number | string }> {
  return filtered(
    executor.selectFrom('articles').select((eb) => eb.fn.countAll<number>().as('count')),
    dialect,
    filter,
  ).compile();
}

/** The id of the project's article with this slug, if any. */
export async function findArticleIdBySlug(
  executor: Executor,
  projectId: string,
  slug: string,
): Promise<string | undefined> {
  // Slugs never hold a NUL, and PostgreSQL refuses one in a parameter.
  if (slug.includes('\u0000')) return undefined;
  const row = await executor
    .selectFrom('articles')
    .select('id')
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row?.id;
}

const viewCountBySlug: Compiled<{ view_count: number | string }> = new WeakMap();

/**
 * The view count an article's answers show (null: no article has that slug). It runs for every
 * read of an article whose count changed (most of them at a blog's rate), so it is compiled once
 * per database handle: building it with Kysely at each call took 2% of the main thread's CPU
 * profile at 10 views a second on SQLite (the rate bench: each view a POST, a PUT and an article read).
 */
export async function findViewCountBySlug(db: Db, projectId: string, slug: string): Promise<number | null> {
  if (slug.includes('\u0000')) return null;
  const query = compiledFor(viewCountBySlug, db, () =>
    db.kysely
      .selectFrom('articles')
      .select(viewCountOf(db.dialect).as('view_count'))
      .where('articles.project_id', '=', '')
      .where('articles.slug', '=', '')
      .compile(),
  );
  const [row] = await db.executeCompiled<{ view_count: number | string }>({
    ...query,
    parameters: [projectId, slug],
  });
  return row === undefined ? null : Number(row.view_count);
}

export function findArticleBySlug(
  executor: Executor,
  dialect: DialectName,
  projectId: string,
  slug: string,
  withContent: boolean,
  withHtml = false,
): Promise<ArticleRow | undefined> {
  // Slugs never hold a NUL, and PostgreSQL refuses one in a parameter.
  if (slug.includes('\u0000')) return Promise.resolve(undefined);
  let query = executor
    .selectFrom('articles')
    .select(summaryOf(dialect))
    .where('articles.project_id', '=', projectId)
    .where('articles.slug', '=', slug);
  if (withContent) query = query.select('articles.content') as typeof query;
  if (withHtml) query = query.select('articles.html') as typeof query;
  return query.executeTakeFirst() as unknown as Promise<ArticleRow | undefined>;
}

export interface ArticleTagRow {
  article_id: string;
  id: string;
  name: string;
  color: string | null;
  icon: string | null;
}

export function findTagsOfArticles(executor: Executor, articleIds: string[]): Promise<ArticleTagRow[]> {
  if (articleIds.length === 0) return Promise.resolve([]);
  return executor
    .selectFrom('article_tags')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .select(['article_tags.article_id', 'tags.id', 'tags.name', 'tags.color', 'tags.icon'])
    .where('article_tags.article_id', 'in', articleIds)
    .orderBy('tags.name_key')
    .orderBy('tags.id')
    .execute();
}

/** Each article's tag names, ordered by name then id (an article without tags is absent). */
export async function findTagNamesByArticle(
  executor: Executor,
  articleIds: string[],
): Promise<Map<string, string[]>> {
  const byArticle = groupBy(await findTagsOfArticles(executor, articleIds), (tag) => tag.article_id);
  return new Map([...byArticle].map(([id, tags]) => [id, tags.map((tag) => tag.name)]));
}

/** Variants ordered by key, byte by byte: the key column has the server's collation on PostgreSQL. */
export async function findVariantsOfArticles(
  executor: Executor,
  articleIds: string[],
): Promise<ArticleVariantTable[]> {
  if (articleIds.length === 0) return [];
  const rows = await executor
    .selectFrom('article_variants')
    .selectAll()
    .where('article_id', 'in', articleIds)
    .execute();
  return rows.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
}

/** Tag ids of the project whose names (already trimmed and lower-cased) are given. */
export async function findTagIdsByNames(
  executor: Executor,
  projectId: string,
  nameKeys: string[],
): Promise<Map<string, string>> {
  // Tag names never hold a NUL, and PostgreSQL refuses one in a parameter: such a name matches no tag.
  const keys = nameKeys.filter((key) => !key.includes('\u0000'));
  if (keys.length === 0) return new Map();
  const rows = await executor
    .selectFrom('tags')
    .select(['id', 'name_key'])
    .where('project_id', '=', projectId)
    .where('name_key', 'in', keys)
    .execute();
  return new Map(rows.map((row) => [row.name_key, row.id]));
}

/**
 * The lowest ordinal no article of the project has, as import.ts's unusedOrdinals gives it, found
 * in SQL: reading every ordinal into a set took 45 ms of a new article's write at 100,000
 * articles. Without a gap (none deleted) it is the count; else the first place where the
 * ordinals read in order skip one. A write holds its project's row from its start, so no other
 * write's article comes between the two statements.
 */
export async function lowestUnusedOrdinal(executor: Executor, projectId: string): Promise<number> {
  const { count, last } = await executor
    .selectFrom('articles')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.max('ordinal').as('last')])
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  if (Number(count) === 0 || Number(last) === Number(count) - 1) return Number(count);
  const { rows } = await sql<{ place: number | string }>`select place from (
      select ordinal, row_number() over (order by ordinal) - 1 as place
      from articles where project_id = ${projectId}) as numbered
    where ordinal <> place order by place limit 1`.execute(executor);
  return Number(rows[0].place);
}
