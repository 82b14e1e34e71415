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
import type { DialectName } from '../db/database.ts';
import {
  articleContainsTerm,
  articleTextContains,
  ordinalAmong,
  projectTokensHolding,
} from '../db/dialect-sql.ts';
import type {
  ArticleTable,
  ArticleVariantTable,
  Database,
  Executor,
  StoredArticleStatus,
} from '../db/schema.ts';
import { OrdinalSet, statusSetKey, tagSetKey, termSource } from './article-sets.ts';
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

/** An article's view count: its row in article_views, or 0 before its first page view. */
const viewCount = sql<number>`coalesce((select v.view_count from article_views as v where v.article_id = articles.id), 0)`;

const sortColumns = {
  createdAt: 'articles.created_at',
  updatedAt: 'articles.updated_at',
  publishedAt: 'articles.published_at',
  title: 'articles.title_key',
  viewCount,
  readTimeMinutes: 'articles.read_time_minutes',
  wordCount: 'articles.word_count',
} as const;

/** Every column but `content`, which only a caller that shows it asks for. */
export const summaryColumns = [
  'articles.id',
  'articles.slug',
  'articles.title',
  'articles.excerpt',
  'articles.cover_image',
  'articles.status',
  'articles.published_at',
  'articles.created_at',
  'articles.updated_at',
  viewCount.as('view_count'),
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
] as const;

export type ArticleRow = Pick<
  ArticleTable,
  | 'id'
  | 'slug'
  | 'title'
  | 'excerpt'
  | 'cover_image'
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
> & { view_count: number; content?: string; html?: string | null };

/**
 * How a page is found. `driven`: from the sets its filters match (trigram index, tag postings),
 * then sorted. `{ ordinals }`: the same from the matching articles' ordinals, known from the
 * article sets, each article still checked by itself (an import may have committed since the
 * sets were read). Both are right when few articles match. `walk`: along the sort index, each
 * article checked by itself (its search text, a probe of its tags), stopping at the page's end:
 * right when many match, since a page then lies near the start of the walk.
 */
export type PagePlan = 'driven' | 'walk' | { ordinals: number[] };

function filtered<O>(
  query: SelectQueryBuilder<Database, 'articles', O>,
  dialect: DialectName,
  filter: ArticleFilter,
  planned: PagePlan = 'driven',
): SelectQueryBuilder<Database, 'articles', O> {
  let q = query.where('articles.project_id', '=', filter.projectId);
  const plan = typeof planned === 'string' ? planned : 'walk';
  if (typeof planned !== 'string') q = q.where(ordinalAmong(dialect, planned.ordinals));
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

/** The filtered, sorted page of the list, as a query to run where the caller chooses. */
export function articlePageQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  order: ArticleOrder,
  page: { offset: number; limit: number },
  withContent: boolean,
  plan: PagePlan,
  withHtml = false,
): CompiledQuery<ArticleRow> {
  let query = filtered(executor.selectFrom('articles').select(summaryColumns), dialect, filter, plan);
  if (withContent) query = query.select('articles.content') as typeof query;
  if (withHtml) query = query.select('articles.html') as typeof query;
  const column = sortColumns[order.sort];
  if (order.sort === 'publishedAt') query = query.orderBy(sql`articles.published_at is null`);
  return query
    .orderBy(column, order.order)
    .orderBy('articles.id', order.order)
    .limit(page.limit)
    .offset(page.offset)
    .compile() as CompiledQuery<ArticleRow>;
}

/**
 * The plan of a page, from the number of matches: walk the sort index when the page's end is
 * expected within 1/20 of the project (matches spread evenly), else start from the matches: their
 * ordinals when the article sets gave them.
 */
export function pagePlan(
  filter: ArticleFilter,
  total: number,
  page: { offset: number; limit: number },
  matches: OrdinalSet | null,
): PagePlan {
  const filtersBySet =
    filter.searchTerms.length > 0 ||
    filter.anyTagIds !== null ||
    filter.allTagIds !== null ||
    filter.excludeTagIds.length > 0;
  if (!filtersBySet) return 'driven';
  if (total >= 20 * (page.offset + page.limit)) return 'walk';
  return matches === null ? 'driven' : { ordinals: matches.ordinals() };
}

/**
 * The number of articles the filter matches, counted in the articles themselves: for the searches
 * that the article sets cannot count (articleSetCount).
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

/** A row of articleSetCount's query: one stored chunk of a set, or (`scheduled`) one ordinal in `chunk`. */
export interface SetRow {
  part: string;
  chunk: number;
  members: Uint8Array | null;
}

/**
 * Chunks of sets one count combines at most: they are combined on the event loop (about 1 µs
 * each, their transfer from SQLite's read worker included), so a count that needs more, such as
 * a search for terms held by very many words (`tion` in an English blog, or many such terms at
 * once), is counted in the texts instead, off the event loop on SQLite.
 */
export const setChunkLimit = 4096;

export interface SetCount {
  /** One statement, so that every set is read from the same snapshot. */
  query: CompiledQuery<SetRow>;
  /** The matching articles; null when the sets have too many chunks (count in the texts). */
  matches(rows: SetRow[]): OrdinalSet | null;
}

/**
 * The articles the filter matches, from the project's article sets (article-sets.ts): the stored
 * status sets, less the articles scheduled at `now` (the only time-dependent part, read from the
 * status index); tag sets; and per search term, the set of its piece of text (up to three
 * characters), or the union of the sets of the tokens holding it. Null when a term is too long
 * for the tokens.
 */
// eslint-disable-next-line max-lines-per-function -- one query built in four parts (status, tags, terms, count) that share the set names and parameters; apart they would pass them all around.
export function articleSetCount(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
): SetCount | null {
  const { projectId } = filter;
  const fixed = new Set<string>();
  const terms: string[] = [];
  const termParts: Array<{ part: string } | { empty: true }> = [];
  for (const term of filter.searchTerms) {
    const key = searchKey(term);
    const source = termSource(key);
    // No stored text holds a NUL (and PostgreSQL takes none in a parameter): nothing matches.
    if (key.includes('\u0000')) termParts.push({ empty: true });
    else if (source.kind === 'text') return null;
    else if (source.kind === 'piece') {
      fixed.add(source.key);
      termParts.push({ part: source.key });
    } else {
      termParts.push({ part: `term ${terms.length}` });
      terms.push(source.term);
    }
  }
  const { status, published } = filter;
  const scheduledNeeded = status === 'published' || status === 'scheduled' || published !== undefined;
  if (status === undefined) for (const stored of storedStatuses) fixed.add(statusSetKey(stored));
  else if (status === 'draft' || status === 'archived') fixed.add(statusSetKey(status));
  if (status === 'published' || published !== undefined) fixed.add(statusSetKey('published'));
  const tagKeys = (ids: string[] | null) => (ids ?? []).map(tagSetKey);
  for (const key of [
    ...tagKeys(filter.anyTagIds),
    ...tagKeys(filter.allTagIds),
    ...tagKeys(filter.excludeTagIds),
  ])
    fixed.add(key);

  const branches: RawBuilder<unknown>[] = [];
  if (fixed.size > 0) {
    branches.push(
      sql`select set_key as part, chunk, members from article_sets where project_id = ${projectId} and set_key in (${sql.join([...fixed])})`,
    );
  }
  terms.forEach((term, i) => {
    branches.push(sql`select ${sql.lit(`term ${i}`)} as part, s.chunk, s.members
      from search_tokens as t join article_sets as s on s.project_id = t.project_id and s.set_key = 't:' || t.token
      where ${projectTokensHolding(dialect, projectId, term)}`);
  });
  if (scheduledNeeded) {
    branches.push(sql`select 'scheduled' as part, ordinal as chunk, null as members from articles
      where project_id = ${projectId} and status = 'published' and published_at > ${filter.now}`);
  }
  const query =
    sql<SetRow>`select * from (${sql.join(branches, sql` union all `)}) as sets limit ${setChunkLimit + 1}`.compile(
      executor,
    );

  return {
    query,
    matches(rows) {
      if (rows.length > setChunkLimit) return null;
      const parts = new Map<string, OrdinalSet>();
      for (const { part, chunk, members } of rows) {
        let set = parts.get(part);
        if (set === undefined) parts.set(part, (set = new OrdinalSet()));
        if (members === null) set.add(Number(chunk));
        else set.addStored(Number(chunk), members);
      }
      const setOf = (part: string) => parts.get(part) ?? new OrdinalSet();
      const union = (keys: string[]) => keys.reduce((all, key) => all.or(setOf(key)), new OrdinalSet());
      const scheduled = setOf('scheduled');
      const publishedNow = () => setOf(statusSetKey('published')).minus(scheduled);
      let result: OrdinalSet;
      if (status === undefined) result = union(storedStatuses.map(statusSetKey));
      else if (status === 'published') result = publishedNow();
      else if (status === 'scheduled') result = scheduled;
      else result = setOf(statusSetKey(status));
      if (published === true) result = result.and(publishedNow());
      if (published === false) result = result.minus(publishedNow());
      for (const term of termParts)
        result = 'empty' in term ? new OrdinalSet() : result.and(setOf(term.part));
      if (filter.anyTagIds !== null) result = result.and(union(tagKeys(filter.anyTagIds)));
      // An empty list of all-of tags holds a name that matches no tag: no article has them all.
      if (filter.allTagIds?.length === 0) result = new OrdinalSet();
      for (const key of tagKeys(filter.allTagIds)) result = result.and(setOf(key));
      if (filter.excludeTagIds.length > 0) result = result.minus(union(tagKeys(filter.excludeTagIds)));
      return result;
    },
  };
}

const storedStatuses: StoredArticleStatus[] = ['draft', 'published', 'archived'];

export function findArticleBySlug(
  executor: Executor,
  projectId: string,
  slug: string,
  withContent: boolean,
  withHtml = false,
): Promise<ArticleRow | undefined> {
  // Slugs never hold a NUL, and PostgreSQL refuses one in a parameter.
  if (slug.includes('\u0000')) return Promise.resolve(undefined);
  let query = executor
    .selectFrom('articles')
    .select(summaryColumns)
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
