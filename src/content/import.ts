// Writes a validated content source into a project in one transaction: articles matched by slug
// keep their id and viewCount, and so do articles removed by --prune when their slug comes back
// (removed-articles.ts); only changed articles get a new updatedAt; the storage limit is checked
// before anything is written; a dry run rolls everything back. Each article's HTML is rendered
// here, once, from its Markdown.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, DialectName } from '../db/database.ts';
import type {
  ArticleInsertRow,
  ArticleTagTable,
  ArticleVariantTable,
  Executor,
  Project,
  TagTable,
} from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import { type OutboxEvent, recordEvents } from '../db/outbox.ts';
import { bumpContentVersion, listsMoved } from '../projects/queries.ts';
import { requireProject } from '../projects/service.ts';
import { formatBytes } from '../projects/size.ts';
import { announceDuePublications } from './announcements.ts';
import { articleEvent, changeEvents, tagEvent } from './article-events.ts';
import { applySetChanges, projectFragments, storedSetKeys } from './article-set-queries.ts';
import { storedArticles } from './article-snapshots.ts';
import { articleSetKeys, movesInLists, SetChanges } from './article-sets.ts';
import { articleUrl } from './article-url.ts';
import {
  applyImportedSettings,
  authorWarnings,
  checkImportedSettings,
  fallbackAuthor,
  formerSite,
  importedSettings,
  isMigration,
  settingsFile,
} from './import-settings.ts';
import {
  type ArticleInput,
  type ContentSource,
  type ImportProblem,
  ImportValidationError,
  type PersonInput,
  type SiteSettings,
  type TagInput,
} from './import/records.ts';
import { type ArticleDigest, type StreamedSource, streamedFromMemory } from './import/digest.ts';
import type { PreparedArticle } from './import/render.ts';
import { RenderAhead } from './import/render-ahead.ts';
import { compareCodeUnits } from './lists.ts';
import { type Removed, rememberRemoved, removedBySlug, restoreRemoved } from './removed-articles.ts';
import { keepRevisions } from './revisions.ts';
import { freeSlug, slugOfTagName } from './tag-slugs.ts';

export interface ImportOptions {
  prune?: boolean;
  dryRun?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** The time of the import; tests pass it to control timestamps. */
  now?: Date;
  /** Article-set changes held before they are written (default pendingSetChanges); for tests. */
  setChangesPerWrite?: number;
  /**
   * The site URL of the blog imported (`folio import --site-url`), for sources that do not hold
   * theirs (Ghost exports, starters): it wins over the source's, and fills the project's when unset.
   */
  siteUrl?: string;
  /** Every warning (the source's and the import's own) refuses the import instead. */
  strict?: boolean;
  /** What the revisions of the articles it changes name as their source (default `import`). */
  revisionSource?: 'import' | 'cli';
  /**
   * Render the articles in a thread of their own, beside the writes (default: from
   * `renderThreadFrom` articles to render on); for tests.
   */
  renderInThread?: boolean;
}

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
  tagsCreated: number;
  tagsUpdated: number;
  /** Tags left without articles by --prune, and removed. */
  tagsRemoved: number;
  storageUsed: string;
  dryRun: boolean;
  /**
   * The slugs of the articles created, updated and removed, of those whose previous version was
   * kept as a revision (each one updated), and the names of the tags removed.
   */
  changes: {
    created: string[];
    updated: string[];
    removed: string[];
    revised: string[];
    tagsRemoved: string[];
  };
  /** The source's warnings and the import's own (`default-author`, `project-setting-kept`, `no-site-url`). */
  warnings: ImportProblem[];
  /** The number of warnings of each kind (`other` for a warning without one), by kind name. */
  warningsByKind: Record<string, number>;
  /** The project settings the import filled in from the site's (`siteUrl`, `urlPattern` …). */
  settingsApplied: string[];
}

export class StorageLimitError extends HttpError {
  constructor(used: number, limit: number) {
    super(
      400,
      'Bad Request',
      `Storage limit exceeded: the content would use ${formatBytes(used)} of the project's ${formatBytes(limit)}`,
      { storageUsed: formatBytes(used), storageLimit: formatBytes(limit) },
    );
  }
}

class DryRunRollback extends Error {}

export { prepare, type PreparedArticle } from './import/render.ts';

export async function importContent(
  db: Db,
  projectSlug: string,
  given: ContentSource | StreamedSource,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const project = await requireProject(db, projectSlug);
  const source = streamedFromMemory(given);
  // A JSON source can carry NUL as `\u0000`; PostgreSQL cannot store it in text.
  const withNul = [
    ...source.tags.filter((tag) => JSON.stringify(tag).includes('\\u0000')).map(() => 'tags'),
    ...source.articles.filter((article) => article.hasNul).map((article) => article.file),
  ].map((file) => ({ file, line: 1, message: 'contains a NUL character' }));
  if (withNul.length > 0) throw new ImportValidationError(withNul);
  const settingWarnings: ImportProblem[] = [];
  const settings = checkImportedSettings(
    importedSettings(source, options.siteUrl),
    options.siteUrl,
    settingWarnings,
  );
  if (options.strict && (source.warnings?.length || settingWarnings.length))
    throw new ImportValidationError([...(source.warnings ?? []), ...settingWarnings]);
  const now = (options.now ?? new Date()).toISOString();
  const summary: ImportSummary = {
    created: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    tagsCreated: 0,
    tagsUpdated: 0,
    tagsRemoved: 0,
    storageUsed: '0 B',
    dryRun: options.dryRun === true,
    changes: { created: [], updated: [], removed: [], revised: [], tagsRemoved: [] },
    warnings: [...(source.warnings ?? []), ...settingWarnings],
    warningsByKind: {},
    settingsApplied: [],
  };
  try {
    await db.kysely.transaction().execute(async (trx) => {
      // First: on PostgreSQL the update locks the project's row until the commit, so that two
      // imports of a project take turns (each reads the articles, free ordinals and article sets
      // the other committed); SQLite's writer lock does the same.
      await bumpContentVersion(trx, project.id, false);
      const site = await projectSite(trx, project, source, settings, summary);
      if (options.strict && summary.warnings.length > 0) throw new ImportValidationError(summary.warnings);
      const events: OutboxEvent[] = [];
      const { keptOrder } = await writeContent(trx, db.dialect, site, source, now, options, summary, events);
      if (!keptOrder) await listsMoved(trx, project.id);
      // Webhook events in the import's transaction: a dry run, rolled back, leaves none.
      await announceDuePublications(trx, new Date(now), project.id);
      events.push({ projectId: project.id, type: 'import.completed', data: completedData(summary) });
      await recordEvents(trx, events, new Date(now));
      if (options.dryRun) throw new DryRunRollback();
    });
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error;
  }
  for (const warning of summary.warnings) {
    const kind = warning.kind ?? 'other';
    summary.warningsByKind[kind] = (summary.warningsByKind[kind] ?? 0) + 1;
  }
  // Fresh statistics let SQLite's planner drive tag filters from the tag index (measured: the
  // count of a tag filter on 10,000 articles from 2.4 to 1.4 ms). PostgreSQL's autovacuum does this.
  if (db.dialect === 'sqlite' && !options.dryRun) await sql`PRAGMA optimize=0x10002`.execute(db.kysely);
  return summary;
}

/** The data of `import.completed`: the summary's counts and the slugs (names of tags) it changed. */
function completedData(summary: ImportSummary): Record<string, unknown> {
  const { created, updated, unchanged, removed, tagsCreated, tagsUpdated, tagsRemoved, changes } = summary;
  return { created, updated, unchanged, removed, tagsCreated, tagsUpdated, tagsRemoved, changes };
}

/** The project and its site as the import writes them: settings applied, and who the articles' fallbacks are. */
export interface ProjectSite {
  project: Project;
  /** The author of an article that names none. */
  author: PersonInput;
  /** The feed id of an article first stored now without one of its own. */
  guid(article: PreparedArticle['input'], id: string, publishedAt: string | null, createdAt: string): string;
}

/**
 * Applies the site's settings to the project (read again under the import's lock), adds the
 * import's own warnings to the summary, and says how new articles get their author and feed id:
 * a migrated article's is its URL on the old site (the old feed's id), else its Folio id.
 */
async function projectSite(
  trx: Executor,
  locked: Project,
  source: StreamedSource,
  settings: Partial<SiteSettings>,
  summary: ImportSummary,
): Promise<ProjectSite> {
  const current =
    (await trx.selectFrom('projects').selectAll().where('id', '=', locked.id).executeTakeFirst()) ?? locked;
  const { project, applied } = await applyImportedSettings(trx, current, settings, summary.warnings);
  summary.settingsApplied = applied;
  summary.warnings.push(...authorWarnings(source, project));
  const former = formerSite(settings, project);
  const migration = isMigration(source);
  if (migration && former.base === null && source.articles.some((article) => !article.hasGuid)) {
    summary.warnings.push({
      file: settingsFile,
      line: 1,
      kind: 'no-site-url',
      message:
        'the site URL is unknown (give --site-url): articles stored now keep their Folio id as feed id instead of their URL on the old site, and their url is a path',
    });
  }
  return {
    project,
    author: fallbackAuthor(project).author,
    guid: (input, id, publishedAt, createdAt) => {
      if (input.guid) return input.guid;
      if (!migration || former.base === null) return id;
      const article = { slug: input.slug, path: input.path ?? null, section: input.section ?? null };
      return articleUrl(former.base, former.urls, {
        ...article,
        published_at: publishedAt,
        created_at: createdAt,
      });
    },
  };
}

// eslint-disable-next-line max-lines-per-function -- the import's one pass over the prepared articles: the stored rows, tag ids, ordinals and set changes it keeps between articles are its state; the storage check, the relations and the prune are apart.
async function writeContent(
  trx: Executor,
  dialect: DialectName,
  site: ProjectSite,
  source: StreamedSource,
  now: string,
  options: ImportOptions,
  summary: ImportSummary,
  events: OutboxEvent[],
): Promise<{ keptOrder: boolean }> {
  const { project } = site;
  const inputs = source.articles;
  // Whether every article changed moved in no list (movesInLists): none created nor removed either.
  let keptOrder = true;
  const existing = new Map(
    (
      await trx
        .selectFrom('articles')
        .select([
          'id',
          'slug',
          'content_hash',
          'created_at',
          'published_at',
          'storage_bytes',
          'ordinal',
          'guid',
          'title',
          'title_key',
          'status',
          'path',
          'section',
          'version',
        ])
        .select((eb) => eb('html', 'is', null).as('html_missing'))
        .where('project_id', '=', project.id)
        .execute()
    ).map((row) => [row.slug, row]),
  );
  const importedSlugs = new Set(inputs.map((article) => article.slug));
  summary.storageUsed = formatBytes(storageAfter(project, inputs, existing, importedSlugs, options));

  const tagIds = await upsertTags(trx, project.id, source, inputs, now, summary, events);
  const removed = inputs.some((article) => !existing.has(article.slug))
    ? await removedBySlug(trx, project.id)
    : new Map();

  // The article sets change with the articles, in the same transaction: each changed article
  // leaves the sets it was in and joins those it is in now (article-sets.ts).
  const sets = new SetChanges();
  const perWrite = options.setChangesPerWrite ?? pendingSetChanges;
  const fragments = await projectFragments(trx, project.id);
  const ordinals = unusedOrdinals([...existing.values()].map((row) => row.ordinal));
  let done = 0;
  let lastOrdinal: number | null = null;
  // Only the articles to write are read again and rendered: an unchanged one is skipped, unless it
  // was stored before the html column existed and needs its HTML.
  const unchanged = (digest: ArticleDigest) => existing.get(digest.slug)?.content_hash === digest.hash;
  const wanted = (index: number) =>
    index < inputs.length &&
    (!unchanged(inputs[index]) || Boolean(Number(existing.get(inputs[index].slug)?.html_missing)));
  let toRender = 0;
  for (let index = 0; index < inputs.length; index++) if (wanted(index)) toRender++;
  const rendering = new RenderAhead(source, wanted, {
    thread: options.renderInThread ?? toRender >= renderThreadFrom,
  });
  try {
    // A changed article is rendered (HTML, text statistics, search text) a few batches ahead of its
    // write, and its rows are dropped with its batch: the rendered articles of a whole source do not
    // fit in memory.
    for (let first = 0; first < inputs.length; first += articleBatch) {
      const batch = inputs
        .slice(first, first + articleBatch)
        .map((digest, i) => ({ digest, index: first + i }));
      const inserted: Inserted = { articles: [], tags: [], variants: [] };
      const changedIds = batch.flatMap(({ digest }) => {
        const previous = existing.get(digest.slug);
        return previous && previous.content_hash !== digest.hash ? [previous.id] : [];
      });
      const before = await storedSetKeys(trx, changedIds, fragments);
      // The versions these changes replace, kept as revisions.
      const replaced = await storedArticles(trx, changedIds);
      for (const { digest, index } of batch) {
        const previous = existing.get(digest.slug);
        if (previous && previous.content_hash === digest.hash) {
          summary.unchanged++;
          // Stored before the html column existed: fill it in, without counting a change.
          if (Number(previous.html_missing)) {
            const { rendered } = await rendering.article(index);
            await trx
              .updateTable('articles')
              .set({ html: rendered.html })
              .where('id', '=', previous.id)
              .execute();
          }
        } else {
          // Read again and rendered only now: an unchanged article is not rendered at all.
          const article = await rendering.article(index);
          // A slug removed by an earlier --prune brings back the same article (id, dates, views).
          const restored = previous ? undefined : removed.get(article.input.slug);
          const ordinal = previous?.ordinal ?? (lastOrdinal = ordinals.next().value!);
          const row = articleRow(
            site,
            article,
            previous ?? (restored && { ...restored, id: restored.article_id }),
            ordinal,
            now,
          );
          if (previous) {
            // created_at is the front matter's createdAt when given (a corrected date applies), else
            // publishedAt, else the stored one: articleRow falls back to previous.created_at.
            const { id: _id, project_id: _project, ...changes } = row;
            // Unpublished: publishing it again is announced again.
            const unpublished = previous.status === 'published' && row.status !== 'published';
            await trx
              .updateTable('articles')
              .set({
                ...changes,
                version: sql`version + 1`,
                ...(unpublished ? { announced_published_at: null } : {}),
              })
              .where('id', '=', previous.id)
              .execute();
            events.push(
              ...changeEvents(project, previous, { ...row, version: Number(previous.version) + 1 }, now),
            );
            summary.changes.revised.push(row.slug);
            await trx.deleteFrom('article_tags').where('article_id', '=', previous.id).execute();
            await trx.deleteFrom('article_variants').where('article_id', '=', previous.id).execute();
            summary.updated++;
            summary.changes.updated.push(row.slug);
          } else {
            inserted.articles.push({ row, restored });
            summary.created++;
            summary.changes.created.push(row.slug);
          }
          const articleTagIds = article.input.tags.map((name) => tagIds.get(name.toLowerCase())!);
          for (const tagId of articleTagIds) inserted.tags.push({ article_id: row.id, tag_id: tagId });
          for (const variant of article.input.variants)
            inserted.variants.push({ id: randomUUID(), article_id: row.id, ...variant });
          const keysBefore = previous ? before.get(previous.id)! : null;
          const keysAfter = articleSetKeys(
            { status: row.status, tagIds: articleTagIds, searchText: row.search_text },
            fragments,
          );
          sets.article(row.ordinal, keysBefore, keysAfter);
          if (previous === undefined || movesInLists(previous, row, keysBefore!, keysAfter))
            keptOrder = false;
          if (sets.size >= perWrite) await applySetChanges(trx, dialect, project.id, sets);
        }
        options.onProgress?.(++done, inputs.length);
      }
      await insertBatch(trx, project.id, inserted);
      await keepRevisions(trx, project.id, [...replaced.values()], options.revisionSource ?? 'import', now);
      // New articles take the lowest free ordinals, in order: the chunks of the sets below the last
      // one taken are complete, written now rather than held (a first import of 100,000 articles
      // held up to 5,000,000 changes, about 100 MB).
      if (lastOrdinal !== null) {
        const complete = sets.takeChunksBefore(lastOrdinal);
        if (complete.size > 0) await applySetChanges(trx, dialect, project.id, complete);
      }
    }
  } finally {
    await rendering.close();
  }

  if (options.prune) {
    const goneRows = [...existing.values()].filter((row) => !importedSlugs.has(row.slug));
    await removeGone(trx, dialect, project.id, goneRows, { sets, perWrite, fragments }, now);
    for (const row of goneRows) events.push(articleEvent(project, 'article.deleted', row, now));
    summary.removed = goneRows.length;
    summary.changes.removed = goneRows.map((row) => row.slug).sort(compareCodeUnits);
  }
  await applySetChanges(trx, dialect, project.id, sets);
  if (options.prune) await pruneEmptyTags(trx, project.id, source, summary, events);
  // A removed article or tag leaves lists; a tag's new name or colour moves no article.
  return { keptOrder: keptOrder && summary.removed === 0 && summary.tagsRemoved === 0 };
}

/** The rows of a batch's new articles, and the tags and variants of its new and changed ones. */
interface Inserted {
  articles: Array<{ row: ArticleInsertRow; restored: Removed | undefined }>;
  tags: ArticleTagTable[];
  variants: ArticleVariantTable[];
}

/** Rows per INSERT: an article row takes about 40 parameters, under SQLite's 32,766. */
const rowsPerInsert = 400;

/** Writes a batch's rows with multi-row INSERTs: one statement per article was most of the write. */
async function insertBatch(trx: Executor, projectId: string, inserted: Inserted): Promise<void> {
  const insertAll = async <T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>) => {
    for (let start = 0; start < rows.length; start += rowsPerInsert)
      await insert(rows.slice(start, start + rowsPerInsert));
  };
  await insertAll(inserted.articles, (chunk) =>
    trx
      .insertInto('articles')
      .values(chunk.map(({ row }) => row))
      .execute(),
  );
  for (const { row, restored } of inserted.articles)
    if (restored) await restoreRemoved(trx, projectId, row.slug, restored);
  await insertAll(inserted.tags, (chunk) => trx.insertInto('article_tags').values(chunk).execute());
  await insertAll(inserted.variants, (chunk) => trx.insertInto('article_variants').values(chunk).execute());
}

/** The project's storage once the import is written; past its limit the import is refused. */
function storageAfter(
  project: Project,
  articles: readonly ArticleDigest[],
  existing: Map<string, { storage_bytes: number | string | bigint }>,
  importedSlugs: Set<string>,
  options: ImportOptions,
): number {
  let storage = articles.reduce((sum, article) => sum + article.storageBytes, 0);
  for (const [slug, row] of existing)
    if (!importedSlugs.has(slug) && !options.prune) storage += Number(row.storage_bytes);
  const limit = Number(project.storage_limit_bytes);
  if (storage > limit) throw new StorageLimitError(storage, limit);
  return storage;
}

export async function writeTagsAndVariants(
  trx: Executor,
  articleId: string,
  tagIds: string[],
  variants: PreparedArticle['input']['variants'],
): Promise<void> {
  const tagRows = tagIds.map((tagId) => ({ article_id: articleId, tag_id: tagId }));
  if (tagRows.length > 0) await trx.insertInto('article_tags').values(tagRows).execute();
  if (variants.length === 0) return;
  await trx
    .insertInto('article_variants')
    .values(variants.map((variant) => ({ id: randomUUID(), article_id: articleId, ...variant })))
    .execute();
}

/** --prune: the articles whose files are gone leave their sets and are removed (remembered, for a restore). */
async function removeGone(
  trx: Executor,
  dialect: DialectName,
  projectId: string,
  goneRows: Array<{ id: string; ordinal: number }>,
  { sets, perWrite, fragments }: { sets: SetChanges; perWrite: number; fragments: readonly string[] },
  now: string,
): Promise<void> {
  for (let start = 0; start < goneRows.length; start += articleBatch) {
    const batch = goneRows.slice(start, start + articleBatch);
    const ids = batch.map((row) => row.id);
    const before = await storedSetKeys(trx, ids, fragments);
    for (const row of batch) sets.article(row.ordinal, before.get(row.id)!, null);
    await rememberRemoved(trx, projectId, ids, now);
    await trx.deleteFrom('articles').where('id', 'in', ids).execute();
    if (sets.size >= perWrite) await applySetChanges(trx, dialect, projectId, sets);
  }
}

/** Articles to render from which they are rendered in a thread: below, starting it costs more than it saves. */
const renderThreadFrom = 1_000;

/** Articles written (or removed) between two reads of their previous sets. */
const articleBatch = 500;
/**
 * Set changes held in memory before they are written: about a chunk's worth of new articles of
 * 2.5 KB (1,000 sets each), so that a first import writes each chunk of a set about once
 * (4,000 such articles: PostgreSQL 20.8 to 17.3 s; peak memory 500 MB, 400 MB without sets).
 */
const pendingSetChanges = 5_000_000;

/** 0, 1, 2 … less the ordinals in use: a new article takes the lowest one free. */
export function* unusedOrdinals(used: number[]): Generator<number, never> {
  const taken = new Set(used);
  for (let ordinal = 0; ; ordinal++) if (!taken.has(ordinal)) yield ordinal;
}

/** Removes the tags that no article carries any more, except those the source declares (tags.yaml). */
async function pruneEmptyTags(
  trx: Executor,
  projectId: string,
  source: Pick<ContentSource, 'tags'>,
  summary: ImportSummary,
  events: OutboxEvent[],
): Promise<void> {
  const declared = new Set(source.tags.map((tag) => tag.name.toLowerCase()));
  const empty = (
    await trx
      .selectFrom('tags')
      .select(['id', 'name', 'name_key', 'slug'])
      .where('project_id', '=', projectId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('article_tags').select('article_id').whereRef('article_tags.tag_id', '=', 'tags.id'),
          ),
        ),
      )
      .execute()
  ).filter((tag) => !declared.has(tag.name_key));
  for (let start = 0; start < empty.length; start += 500) {
    await trx
      .deleteFrom('tags')
      .where(
        'id',
        'in',
        empty.slice(start, start + 500).map((tag) => tag.id),
      )
      .execute();
  }
  summary.tagsRemoved = empty.length;
  for (const tag of empty) events.push(tagEvent(projectId, 'tag.deleted', tag));
  summary.changes.tagsRemoved = empty.map((tag) => tag.name).sort(compareCodeUnits);
}

export function articleRow(
  { project, author: fallback, guid }: ProjectSite,
  { input, hash, storageBytes, rendered }: PreparedArticle,
  previous: { id: string; created_at: string; published_at: string | null; guid?: string | null } | undefined,
  ordinal: number,
  now: string,
): ArticleInsertRow {
  // A published article without a date is published from its first import on, and keeps that date.
  const publishedAt =
    input.publishedAt ?? (input.status === 'published' ? (previous?.published_at ?? now) : null);
  // The publication date orders an imported blog's posts as they were written, not as imported.
  const createdAt = input.createdAt ?? publishedAt ?? previous?.created_at ?? now;
  const id = previous?.id ?? randomUUID();
  // The first of the authors is the article's author; without any, the project's default author.
  const first = input.authors?.[0];
  const author = first ? { name: first.name, image: first.image } : (input.author ?? fallback);
  return {
    id,
    project_id: project.id,
    slug: input.slug,
    title: input.title,
    title_key: input.title.toLowerCase(),
    excerpt: input.excerpt,
    cover_image: input.coverImage,
    cover_image_alt: input.coverImageAlt ?? null,
    content: input.content,
    html: rendered.html,
    status: input.status,
    published_at: publishedAt,
    created_at: createdAt,
    // The source's own date, else (first import) the publication or creation date: an old post is
    // not "modified today" in the sitemap and JSON-LD. A re-import only writes an article whose
    // content changed, and without a source date that edit happened now.
    updated_at: input.updatedAt ?? (previous ? now : (publishedAt ?? createdAt)),
    word_count: rendered.wordCount,
    character_count: rendered.characterCount,
    read_time_minutes: rendered.readTimeMinutes,
    summary: rendered.summary,
    search_text: rendered.searchText,
    author_name: author.name,
    author_image: author.image ?? null,
    last_updated_by_name: input.lastUpdatedBy?.name ?? null,
    last_updated_by_image: input.lastUpdatedBy?.image ?? null,
    seo: input.seo ? JSON.stringify(input.seo) : null,
    storage_bytes: storageBytes,
    content_hash: hash,
    ordinal,
    path: input.path ?? null,
    section: input.section ?? null,
    aliases: JSON.stringify(input.aliases ?? []),
    // Fixed when first stored: a re-import never changes the feed id readers know the article by.
    guid: previous?.guid ?? guid(input, id, publishedAt, createdAt),
    visibility: input.visibility ?? 'public',
    tiers: JSON.stringify(input.tiers ?? []),
    authors: JSON.stringify(input.authors ?? []),
  };
}

/**
 * Creates and updates the tags of tags.yaml and of the articles; returns name key → tag id. A new
 * tag's slug is the source's, else derived from its name, with `-2`, `-3` … when another tag of
 * the project holds it; a declared slug replaces a stored one when no other tag holds it.
 */
export async function upsertTags(
  trx: Executor,
  projectId: string,
  source: Pick<ContentSource, 'tags'>,
  articles: readonly Pick<ArticleInput, 'tags'>[],
  now: string,
  summary: Pick<ImportSummary, 'tagsCreated' | 'tagsUpdated'>,
  events: OutboxEvent[],
): Promise<Map<string, string>> {
  const existing = new Map<string, TagTable>(
    (await trx.selectFrom('tags').selectAll().where('project_id', '=', projectId).execute()).map((tag) => [
      tag.name_key,
      tag,
    ]),
  );
  const takenSlugs = new Set([...existing.values()].map((tag) => tag.slug));
  const insert = async (tag: TagInput) => {
    const slug = freeSlug(tag.slug ?? slugOfTagName(tag.name), takenSlugs);
    const row: TagTable = {
      id: randomUUID(),
      project_id: projectId,
      name: tag.name,
      name_key: tag.name.toLowerCase(),
      slug,
      color: tag.color,
      icon: tag.icon,
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto('tags').values(row).execute();
    existing.set(row.name_key, row);
    takenSlugs.add(slug);
    summary.tagsCreated++;
    events.push(tagEvent(projectId, 'tag.created', row));
  };
  for (const tag of source.tags) {
    const current = existing.get(tag.name.toLowerCase());
    if (current === undefined) {
      await insert(tag);
      continue;
    }
    const slug = tag.slug && tag.slug !== current.slug && !takenSlugs.has(tag.slug) ? tag.slug : current.slug;
    if (
      current.name !== tag.name ||
      current.color !== tag.color ||
      current.icon !== tag.icon ||
      slug !== current.slug
    ) {
      await trx
        .updateTable('tags')
        .set({ name: tag.name, slug, color: tag.color, icon: tag.icon, updated_at: now })
        .where('id', '=', current.id)
        .execute();
      takenSlugs.delete(current.slug);
      takenSlugs.add(slug);
      summary.tagsUpdated++;
      events.push(tagEvent(projectId, 'tag.updated', { id: current.id, name: tag.name, slug }));
    }
  }
  for (const article of articles) {
    for (const name of article.tags) {
      if (!existing.has(name.toLowerCase())) await insert({ name, color: null, icon: null });
    }
  }
  const ids = new Map<string, string>();
  for (const [key, tag] of existing) ids.set(key, tag.id);
  return ids;
}
