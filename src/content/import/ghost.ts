// A Ghost JSON export (Settings → Labs → Export, Ghost 4 and 5: { db: [{ meta, data: { posts, tags,
// posts_tags, users, posts_authors, posts_meta } }] }) as Folio records. Posts keep their slug,
// dates, status, feature image, custom excerpt, tags (public ones, in Ghost's order), primary
// author and SEO fields; their HTML becomes Markdown with turndown. Pages are not posts: skipped.
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';
import { groupBy } from '../lists.ts';
import type { ArticleInput, ContentSource, ImportProblem, ReadOptions, TagInput } from './records.ts';
import { type ArticleOutcome, JSON_ARTICLE_FIELDS, validateArticle } from './article-rules.ts';
import { mergeDuplicates } from './duplicate-slugs.ts';
import { type Ctx, describe, isObject, type Path, report, sortByLine, warn } from './check-kit.ts';
import { COLOR_RE, validateTagList } from './tag-rules.ts';
import { lazyJsonLocator } from './yaml-lines.ts';

/** Folio's field → the Ghost post field it comes from, so that problems point at Ghost's line. */
const GHOST_FIELD: Record<string, string> = {
  title: 'title',
  slug: 'slug',
  excerpt: 'custom_excerpt',
  coverImage: 'feature_image',
  status: 'status',
  publishedAt: 'published_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  content: 'html',
};

const STATUS: Record<string, string> = {
  published: 'published',
  // Folio reports a published article with a future date as scheduled, and publishes it on time.
  scheduled: 'published',
  draft: 'draft',
  // Sent only as an email newsletter, never on the site.
  sent: 'archived',
};

export function isGhostExport(data: unknown): boolean {
  if (!isObject(data)) return false;
  if ('db' in data) return true;
  return isObject(data['data']) && 'posts' in data['data'] && 'meta' in data;
}

let turndown: TurndownService | undefined;

/** Loaded on first use: turndown and its DOM take ~80 ms to load, which every other CLI command would pay. */
function converter(): TurndownService {
  if (turndown === undefined) {
    const Turndown = createRequire(import.meta.url)('turndown') as typeof TurndownService;
    turndown = new Turndown({
      headingStyle: 'atx',
      codeBlockStyle: 'fenced',
      bulletListMarker: '-',
      emDelimiter: '_',
    });
    // Code injected into a post (HTML cards) is not text: without this, its source would become prose.
    turndown.remove(['script', 'style', 'noscript']);
  }
  return turndown;
}

/** Ghost writes its own site's URLs with a placeholder; without it they are root-relative paths. */
function withoutGhostUrl(value: unknown): unknown {
  return typeof value === 'string' ? value.replaceAll('__GHOST_URL__', '') : value;
}

export function htmlToMarkdown(html: string): string {
  return converter().turndown(withoutGhostUrl(html) as string);
}

function rows(ctx: Ctx, data: Record<string, unknown>, table: string, base: Path): Record<string, unknown>[] {
  const value = data[table];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report(ctx, [...base, table], `${table} must be a list, got ${describe(value)}`);
    return [];
  }
  return value.filter((row, i) => {
    if (isObject(row)) return true;
    report(ctx, [...base, table, i], `${table}[${i}] must be an object, got ${describe(row)}`);
    return false;
  }) as Record<string, unknown>[];
}

function bySortOrder(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return Number(a['sort_order'] ?? 0) - Number(b['sort_order'] ?? 0);
}

/** Rows of a join table by their post, each post's in `sort_order`. */
function byPost(list: Record<string, unknown>[]): Map<unknown, Record<string, unknown>[]> {
  const groups = groupBy(list, (row) => row['post_id']);
  for (const group of groups.values()) group.sort(bySortOrder);
  return groups;
}

/** The tables of a Ghost export that Folio reads, each post's rows by post id. */
interface GhostTables {
  posts: GhostRow[];
  tags: GhostRow[];
  postsTags: Map<unknown, GhostRow[]>;
  users: Map<unknown, GhostRow>;
  postsAuthors: Map<unknown, GhostRow[]>;
  postsMeta: Map<unknown, GhostRow>;
  /** Every tag by id, with its index in `tags` (for locating its problems). */
  tagsById: Map<unknown, { tag: GhostRow; index: number }>;
}

type GhostRow = Record<string, unknown>;

const shape = 'a Ghost export is { "db": [ { "meta": …, "data": { "posts": […], … } } ] }';

export function ghostSource(
  file: string,
  text: string,
  root: unknown,
  options: ReadOptions = {},
): { source?: ContentSource; problems: ImportProblem[] } {
  const locate = lazyJsonLocator(text);
  const warnings: ImportProblem[] = [];
  const strict = options.strict === true;
  const rootCtx: Ctx = { file, problems: [], warnings, strict, locate };

  const found = ghostData(rootCtx, root);
  if (found === null) return { problems: rootCtx.problems };
  const { data, base } = found;
  const tables = ghostTables(rootCtx, data, base);
  if (rootCtx.problems.length > 0) return { problems: sortByLine(rootCtx.problems) };

  const tagProblems: ImportProblem[] = [];
  const tags = ghostTagList(rootCtx, tables, [...base, 'tags'], tagProblems);

  const entries: { file: string; outcome: ArticleOutcome }[] = [];
  let pages = 0;
  tables.posts.forEach((post, i) => {
    const postPath = [...base, 'posts', i];
    if (post['type'] === 'page') {
      pages++;
      return;
    }
    const label = `${file}#posts[${i}]`;
    const ctx: Ctx = {
      file: label,
      problems: [],
      warnings,
      strict,
      locate: (path) =>
        locate([...postPath, ...(typeof path[0] === 'string' ? [GHOST_FIELD[path[0]] ?? path[0]] : [])]),
    };
    entries.push({
      file: label,
      outcome: validateArticle(ctx, ghostRecord(ctx, post, tables), { allowed: JSON_ARTICLE_FIELDS }),
    });
  });
  if (pages > 0) warn(rootCtx, [...base, 'posts'], `${pages} page(s) skipped: Folio imports posts`);

  const problems = [...sortByLine(tagProblems), ...mergeDuplicates(entries)];
  if (problems.length > 0) return { problems };
  return {
    source: { tags, articles: entries.map((e) => e.outcome.article as ArticleInput), warnings },
    problems,
  };
}

/** The export's `data` object (in `db[0]` or at the root) and its path; null after reporting why there is none. */
function ghostData(rootCtx: Ctx, root: unknown): { data: GhostRow; base: Path } | null {
  let base: Path = [];
  let entry: unknown = root;
  if (isObject(root) && 'db' in root) {
    const db = root['db'];
    if (!Array.isArray(db) || db.length === 0) {
      report(rootCtx, ['db'], `db must be a non-empty list: ${shape}`);
      return null;
    }
    if (db.length > 1) warn(rootCtx, ['db', 1], `db holds ${db.length} exports: only the first is read`);
    base = ['db', 0];
    entry = db[0];
  }
  if (!isObject(entry) || !isObject(entry['data'])) {
    report(rootCtx, base, `no "data" object found: ${shape}`);
    return null;
  }
  const data = entry['data'];
  base = [...base, 'data'];
  if (!Array.isArray(data['posts'])) {
    report(
      rootCtx,
      data['posts'] === undefined ? base : [...base, 'posts'],
      `data.posts must be a list of posts, got ${describe(data['posts'])}: ${shape}`,
    );
    return null;
  }
  return { data, base };
}

function ghostTables(rootCtx: Ctx, data: GhostRow, base: Path): GhostTables {
  // Read in this order, so that problems on the same line come in the order they always did.
  const posts = rows(rootCtx, data, 'posts', base);
  const tags = rows(rootCtx, data, 'tags', base);
  return {
    posts,
    tags,
    postsTags: byPost(rows(rootCtx, data, 'posts_tags', base)),
    users: new Map(rows(rootCtx, data, 'users', base).map((user) => [user['id'], user])),
    postsAuthors: byPost(rows(rootCtx, data, 'posts_authors', base)),
    postsMeta: new Map(rows(rootCtx, data, 'posts_meta', base).map((meta) => [meta['post_id'], meta])),
    tagsById: new Map(tags.map((tag, i) => [tag['id'], { tag, index: i }])),
  };
}

/** Internal tags (#name) organise posts inside Ghost; they are not shown to readers. */
function isPublic(tag: GhostRow): boolean {
  return (
    tag['visibility'] !== 'internal' && !(typeof tag['name'] === 'string' && tag['name'].startsWith('#'))
  );
}

/** The public tags, with their accent colour when it is one Folio takes; problems go to `tagProblems`. */
function ghostTagList(
  rootCtx: Ctx,
  tables: GhostTables,
  tagsPath: Path,
  tagProblems: ImportProblem[],
): TagInput[] {
  const { file, warnings, strict, locate } = rootCtx;
  const publicTags = [...tables.tagsById.values()].filter(({ tag }) => isPublic(tag));
  return validateTagList(
    publicTags.map(({ tag }) => ({
      name: tag['name'],
      slug: tag['slug'],
      color:
        typeof tag['accent_color'] === 'string' && COLOR_RE.test(tag['accent_color'])
          ? tag['accent_color']
          : null,
    })),
    { ...rootCtx, problems: tagProblems, locate: () => locate(tagsPath) },
    (i) => ({
      file,
      problems: tagProblems,
      warnings,
      strict,
      locate: (path) => locate([...tagsPath, publicTags[i].index, ...path]),
    }),
    (i) => `${file}:${locate([...tagsPath, publicTags[i].index])}`,
  );
}

/** One Ghost post as the fields of a Folio article, with its tags, author and SEO from the other tables. */
function ghostRecord(ctx: Ctx, post: GhostRow, tables: GhostTables): GhostRow {
  const record: GhostRow = {};
  for (const [folio, ghost] of Object.entries(GHOST_FIELD)) {
    if (post[ghost] !== undefined && post[ghost] !== null) record[folio] = withoutGhostUrl(post[ghost]);
  }
  const status = post['status'];
  if (typeof status === 'string' && status in STATUS) record['status'] = STATUS[status];
  else if (status !== undefined && status !== null) {
    report(
      ctx,
      ['status'],
      `status must be one of ${Object.keys(STATUS).join(', ')}, got ${JSON.stringify(status)}`,
    );
    delete record['status'];
  }
  // Ghost keeps no publication date on drafts; the status says whether the post is out.
  if (record['status'] !== 'published') delete record['publishedAt'];
  // Ghost orders posts by publication: a published post's createdAt is its publishedAt (the
  // default), as for every other source, so that Folio's default order is Ghost's.
  else if (record['publishedAt'] !== undefined) delete record['createdAt'];
  const html = post['html'];
  if (typeof html === 'string') record['content'] = htmlToMarkdown(html);
  else if (html !== undefined && html !== null) {
    report(ctx, ['content'], `html must be a string or null, got ${describe(html)}`);
    delete record['content'];
  }
  record['tags'] = (tables.postsTags.get(post['id']) ?? [])
    .map((link) => tables.tagsById.get(link['tag_id'])?.tag)
    .filter((tag) => tag !== undefined && isPublic(tag))
    .map((tag) => tag!['name']);
  const [primary] = tables.postsAuthors.get(post['id']) ?? [];
  const user = primary === undefined ? undefined : tables.users.get(primary['author_id']);
  if (user !== undefined && typeof user['name'] === 'string') {
    record['author'] = { name: user['name'], image: withoutGhostUrl(user['profile_image'] ?? null) };
  }
  const meta = tables.postsMeta.get(post['id']) ?? post;
  const seo = {
    metaTitle: meta['meta_title'] ?? null,
    metaDescription: meta['meta_description'] ?? null,
    ogImage: withoutGhostUrl(meta['og_image'] ?? null),
    canonicalUrl: post['canonical_url'] ?? null,
  };
  if (Object.values(seo).some((value) => value !== null)) record['seo'] = seo;
  return record;
}
