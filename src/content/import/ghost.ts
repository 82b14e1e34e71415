// A Ghost JSON export (Settings → Labs → Export, Ghost 4 and 5: { db: [{ meta, data: { posts, tags,
// posts_tags, users, posts_authors, posts_meta, products, posts_products, settings } }] }) as Folio
// records, moved in faithfully: posts keep their slug, Ghost's URL (`/{slug}/`), their
// id as feed guid, dates, status, feature image, custom excerpt, public tags with Ghost's slugs (in
// Ghost's order), co-authors in order, visibility and tiers, and SEO fields; their HTML becomes
// Markdown (ghost-html.ts) with the members-only divider kept. Pages are reported, not imported;
// internal tags and fields Folio has no place for are warned about with their line.
import { groupBy } from '../lists.ts';
import type {
  ArticleInput,
  ContentSource,
  FileReport,
  ImportProblem,
  ReadOptions,
  TagInput,
} from './records.ts';
import { type ArticleOutcome, JSON_ARTICLE_FIELDS, validateArticle } from './article-rules.ts';
import { mergeDuplicates } from './duplicate-slugs.ts';
import { type Ctx, describe, isObject, type Path, report, sortByLine } from './check-kit.ts';
import { warnUnmappedFields } from './ghost-fields.ts';
import { htmlToMarkdown, resolved } from './ghost-html.ts';
import { ghostAuthors, ghostVisibility, type GhostRow } from './ghost-relations.ts';
import { ghostPath, ghostSettings, siteUrlOption } from './ghost-settings.ts';
import { COLOR_RE, validateTagList } from './tag-rules.ts';
import { lazyJsonLocator } from './yaml-lines.ts';

export { htmlToMarkdown } from './ghost-html.ts';

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

function rows(ctx: Ctx, data: GhostRow, table: string, base: Path): GhostRow[] {
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
  }) as GhostRow[];
}

function bySortOrder(a: GhostRow, b: GhostRow): number {
  return Number(a['sort_order'] ?? 0) - Number(b['sort_order'] ?? 0);
}

/** Rows of a join table by their post, each post's in `sort_order`. */
function byPost(list: GhostRow[]): Map<unknown, GhostRow[]> {
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
  /** Each post's posts_meta row, with its index in the table (for locating its fields). */
  postsMeta: Map<unknown, { row: GhostRow; index: number }>;
  postsProducts: Map<unknown, GhostRow[]>;
  products: Map<unknown, GhostRow>;
  settings: GhostRow[];
  /** Every tag by id, with its index in `tags` (for locating its problems). */
  tagsById: Map<unknown, { tag: GhostRow; index: number }>;
  locateRow: (row: GhostRow, field: string) => number;
}

const shape = 'a Ghost export is { "db": [ { "meta": …, "data": { "posts": […], … } } ] }';

/** Everything read from the export so far, and where each kind of finding goes. */
interface Reading {
  file: string;
  base: Path;
  tables: GhostTables;
  siteUrl: string | null;
  strict: boolean;
  locate: (path: Path) => number;
  warnings: ImportProblem[];
  files: FileReport[];
  entries: { file: string; outcome: ArticleOutcome }[];
}

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
  const siteUrl = siteUrlOption(options.siteUrl);

  const tagProblems: ImportProblem[] = [];
  const tags = ghostTagList(rootCtx, tables, [...base, 'tags'], tagProblems);
  warnInternalTags(rootCtx, tables, [...base, 'tags']);
  const settings = ghostSettings(rootCtx, tables.settings, [...base, 'settings'], siteUrl);

  const reading: Reading = { file, base, tables, siteUrl, strict, locate, warnings, files: [], entries: [] };
  tables.posts.forEach((post, i) => readPost(reading, post, i));

  // A duplicate's problem is on the export's line; its message names the other post.
  const duplicates = mergeDuplicates(reading.entries).map((problem) => ({ ...problem, file }));
  const problems = [...sortByLine(tagProblems), ...duplicates];
  // --strict makes every warning an error (what would be left behind is refused).
  if (strict) problems.push(...sortByLine(warnings));
  if (problems.length > 0) return { problems };
  const articles = reading.entries.map((entry) => entry.outcome.article as ArticleInput);
  return {
    source: {
      generator: 'ghost',
      settings,
      files: reading.files,
      tags,
      articles,
      warnings: sortByLine(warnings),
    },
    problems,
  };
}

/** `export.json#posts/welcome`: how the import report names one post of the export. */
function postLabel(file: string, post: GhostRow, index: number): string {
  return typeof post['slug'] === 'string' && post['slug'] !== ''
    ? `${file}#posts/${post['slug']}`
    : `${file}#posts[${index}]`;
}

/** One post: a page is reported; a post is validated into an article, with its relations and report line. */
function readPost(reading: Reading, post: GhostRow, i: number): void {
  const { file, base, tables, siteUrl, strict, locate, warnings } = reading;
  const postPath = [...base, 'posts', i];
  const label = postLabel(file, post, i);
  if (post['type'] === 'page') {
    reading.files.push({ file: label, kind: 'page', reason: 'type page: a Ghost page, not a post' });
    return;
  }
  const ctx: Ctx = {
    file,
    problems: [],
    warnings,
    strict,
    locate: (path) =>
      locate([...postPath, ...(typeof path[0] === 'string' ? [GHOST_FIELD[path[0]] ?? path[0]] : [])]),
  };
  const record = ghostRecord(ctx, post, tables, siteUrl);
  const { visibility, tiers } = ghostVisibility(ctx, post, tables);
  const authors = ghostAuthors(ctx, post, tables, siteUrl);
  if (authors.length > 0) record['author'] = { name: authors[0].name, image: authors[0].image };
  const outcome = validateArticle(ctx, record, { allowed: JSON_ARTICLE_FIELDS });
  // Problems found before validateArticle (visibility) are kept with its own.
  if (outcome.problems !== ctx.problems) outcome.problems.unshift(...ctx.problems);
  if (outcome.article !== undefined) {
    Object.assign(outcome.article, {
      file: label,
      path: outcome.slug === undefined ? null : ghostPath(outcome.slug),
      guid: ghostGuid(post['id']),
      visibility,
      tiers,
      authors,
    });
  }
  const meta = tables.postsMeta.get(post['id']);
  warnUnmappedFields(
    { file, warnings, locate, post: JSON.stringify(post['slug'] ?? i) },
    { row: post, path: postPath },
    meta && { row: meta.row, path: [...base, 'posts_meta', meta.index] },
  );
  reading.entries.push({ file: `${file}#posts[${i}]`, outcome });
  reading.files.push(fileReport(label, post));
}

/** Ghost's RSS uses the post's `id` as the item's guid (isPermaLink false); very old exports have numeric ids. */
function ghostGuid(id: unknown): string | null {
  if (typeof id === 'string' && id.trim() !== '') return id;
  return typeof id === 'number' && Number.isFinite(id) ? String(id) : null;
}

function fileReport(label: string, post: GhostRow): FileReport {
  if (post['status'] === 'draft') return { file: label, kind: 'draft' };
  if (post['status'] === 'sent') {
    return {
      file: label,
      kind: 'excluded',
      reason: 'status sent: sent only as an email newsletter, never on the site; imported as archived',
    };
  }
  return { file: label, kind: 'post' };
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
    if (db.length > 1) {
      rootCtx.warnings.push({
        file: rootCtx.file,
        line: rootCtx.locate(['db', 1]),
        kind: 'ignored-export',
        message: `db holds ${db.length} exports: only the first is read`,
      });
    }
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
  // Where each row of a join table is, for warnings about what it links to.
  const rowPaths = new Map<GhostRow, Path>();
  const joinTable = (table: string) => {
    const list = rows(rootCtx, data, table, base);
    const raw = Array.isArray(data[table]) ? (data[table] as unknown[]) : [];
    raw.forEach((row, i) => rowPaths.set(row as GhostRow, [...base, table, i]));
    return byPost(list);
  };
  // Read in this order, so that problems on the same line come in the order they always did.
  const posts = rows(rootCtx, data, 'posts', base);
  const tags = rows(rootCtx, data, 'tags', base);
  return {
    posts,
    tags,
    postsTags: joinTable('posts_tags'),
    users: new Map(rows(rootCtx, data, 'users', base).map((user) => [user['id'], user])),
    postsAuthors: joinTable('posts_authors'),
    postsMeta: new Map(
      rows(rootCtx, data, 'posts_meta', base).map((row, index) => [row['post_id'], { row, index }]),
    ),
    postsProducts: joinTable('posts_products'),
    products: new Map(rows(rootCtx, data, 'products', base).map((product) => [product['id'], product])),
    settings: rows(rootCtx, data, 'settings', base),
    tagsById: new Map(tags.map((tag, i) => [tag['id'], { tag, index: i }])),
    locateRow: (row, field) => rootCtx.locate([...(rowPaths.get(row) ?? base), field]),
  };
}

/** Internal tags (#name) organise posts inside Ghost; they are not shown to readers. */
function isPublic(tag: GhostRow): boolean {
  return (
    tag['visibility'] !== 'internal' && !(typeof tag['name'] === 'string' && tag['name'].startsWith('#'))
  );
}

/** Each internal tag is left out, with a warning at its name saying how many posts carried it. */
function warnInternalTags(rootCtx: Ctx, tables: GhostTables, tagsPath: Path): void {
  const carried = new Map<unknown, number>();
  for (const links of tables.postsTags.values()) {
    for (const link of links) carried.set(link['tag_id'], (carried.get(link['tag_id']) ?? 0) + 1);
  }
  for (const { tag, index } of tables.tagsById.values()) {
    if (isPublic(tag)) continue;
    rootCtx.warnings.push({
      file: rootCtx.file,
      line: rootCtx.locate([...tagsPath, index, 'name']),
      kind: 'internal-tag',
      message: `internal tag ${JSON.stringify(tag['name'])} is not imported (${carried.get(tag['id']) ?? 0} post(s) carry it): Ghost never shows internal tags to readers`,
    });
  }
}

/** The public tags, with Ghost's slug and accent colour; problems go to `tagProblems`. */
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

/** Ghost's status, dates and content as the fields of a Folio article. */
function ghostPostFields(ctx: Ctx, post: GhostRow, record: GhostRow, siteUrl: string | null): void {
  for (const [folio, ghost] of Object.entries(GHOST_FIELD)) {
    const value = post[ghost];
    if (value === undefined || value === null) continue;
    record[folio] = typeof value === 'string' ? resolvedField(folio, value, siteUrl) : value;
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
  // Ghost keeps a draft's last scheduled date in published_at; the status says whether the post is
  // out. createdAt stays Ghost's created_at (the source's creation date).
  if (record['status'] !== 'published') delete record['publishedAt'];
  const html = post['html'];
  if (typeof html === 'string') record['content'] = htmlToMarkdown(html, siteUrl);
  else if (html !== undefined && html !== null) {
    report(ctx, ['content'], `html must be a string or null, got ${describe(html)}`);
    delete record['content'];
  }
}

/** An image field is one of the site's URLs; text fields keep `__GHOST_URL__` replaced, nothing more. */
function resolvedField(folio: string, value: string, siteUrl: string | null): string {
  return folio === 'coverImage' ? resolved(value, siteUrl) : value.replaceAll('__GHOST_URL__', siteUrl ?? '');
}

/** The post's public tags in posts_tags order; a link to a tag the export does not hold is reported. */
function ghostPostTags(ctx: Ctx, post: GhostRow, tables: GhostTables): unknown[] {
  const names: unknown[] = [];
  for (const link of tables.postsTags.get(post['id']) ?? []) {
    const tag = tables.tagsById.get(link['tag_id'])?.tag;
    if (tag === undefined) {
      ctx.warnings.push({
        file: ctx.file,
        line: tables.locateRow(link, 'tag_id'),
        kind: 'unknown-tag',
        message: `tag ${JSON.stringify(link['tag_id'])} of posts_tags is not among the export's tags: left out of the post's tags`,
      });
    } else if (isPublic(tag)) names.push(tag['name']);
  }
  return names;
}

/** One Ghost post as the fields of a Folio article, with its tags and SEO from the other tables. */
function ghostRecord(ctx: Ctx, post: GhostRow, tables: GhostTables, siteUrl: string | null): GhostRow {
  const record: GhostRow = {};
  ghostPostFields(ctx, post, record, siteUrl);
  record['tags'] = ghostPostTags(ctx, post, tables);
  const meta = tables.postsMeta.get(post['id'])?.row ?? post;
  const ogImage = meta['og_image'];
  const seo = {
    metaTitle: meta['meta_title'] ?? null,
    metaDescription: meta['meta_description'] ?? null,
    ogImage: typeof ogImage === 'string' ? resolved(ogImage, siteUrl) : (ogImage ?? null),
    canonicalUrl: post['canonical_url'] ?? null,
  };
  if (Object.values(seo).some((value) => value !== null)) record['seo'] = seo;
  // Ghost 5 keeps the cover's alt text in posts_meta, Ghost 4 on the post.
  const alt = meta['feature_image_alt'] ?? post['feature_image_alt'];
  if (typeof alt === 'string') record['coverImageAlt'] = alt;
  return record;
}
