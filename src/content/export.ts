// Writes a project's content as a folder that `folio import` reads back into the same articles:
// one Markdown file per article (YAML front matter with every stored field, the body as stored),
// tags.yaml with every tag, and project.yaml with the project's settings (which import ignores:
// `folio projects create` takes them). Everything is read in one snapshot, a batch at a time.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Db } from '../db/database.ts';
import { readSnapshot } from '../db/read-snapshot.ts';
import type { ArticleTable, Executor, Project } from '../db/schema.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { findProjectBySlug } from '../projects/queries.ts';
import { formatBytes } from '../projects/size.ts';

export interface ExportSummary {
  articles: number;
  tags: number;
  /** Slugs of articles whose body holds a carriage return, which a Markdown file cannot keep as is. */
  lossy: string[];
}

/** Articles read per query: bounded memory whatever the project's size. */
const batchSize = 200;

/** Jekyll's dated file names (`2024-01-15-title.md`) would give the article another slug and date. */
const jekyllNameRe = /^\d{4}-\d{2}-\d{2}-/;

export async function exportContent(db: Db, projectSlug: string, dir: string): Promise<ExportSummary> {
  const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length > 0)
    throw new ValidationError([{ field: 'dir', message: `${dir} is not empty: export into a new folder` }]);
  await mkdir(dir, { recursive: true });
  return readSnapshot(db, async (executor) => {
    const project = await findProjectBySlug(executor, projectSlug);
    if (project === undefined) throw new NotFoundError(`Project '${projectSlug}' not found`);
    await writeFile(join(dir, 'project.yaml'), yaml(projectSettings(project)));
    const tags = await executor
      .selectFrom('tags')
      .select(['name', 'color', 'icon'])
      .where('project_id', '=', project.id)
      .orderBy('name_key')
      .execute();
    await writeFile(join(dir, 'tags.yaml'), tags.length === 0 ? '[]\n' : yaml(tags.map(withoutNulls)));
    const summary: ExportSummary = { articles: 0, tags: tags.length, lossy: [] };
    let after = '';
    for (;;) {
      const batch = await articleBatch(executor, project.id, after);
      if (batch.length === 0) break;
      for (const article of batch) {
        if (article.content.includes('\r')) summary.lossy.push(article.slug);
        const name = jekyllNameRe.test(article.slug) ? `_${article.slug}` : article.slug;
        await writeFile(join(dir, `${name}.md`), markdownFile(article));
      }
      summary.articles += batch.length;
      after = batch[batch.length - 1].slug;
    }
    return summary;
  });
}

/** The settings `folio projects create` takes, under its option names. */
function projectSettings(project: Project) {
  return withoutNulls({
    name: project.name,
    slug: project.slug,
    description: project.description,
    siteUrl: project.site_url,
    logoUrl: project.logo_url,
    urlPattern: project.url_pattern,
    timeZone: project.time_zone,
    defaultAuthor: project.default_author === null ? null : JSON.parse(project.default_author),
    storageLimit: formatBytes(Number(project.storage_limit_bytes)),
  });
}

interface ExportedArticle {
  slug: string;
  content: string;
  frontMatter: Record<string, unknown>;
}

const exportedColumns = [
  'id',
  'slug',
  'title',
  'excerpt',
  'cover_image',
  'content',
  'status',
  'published_at',
  'created_at',
  'updated_at',
  'author_name',
  'author_image',
  'last_updated_by_name',
  'last_updated_by_image',
  'seo',
  'cover_image_alt',
  'path',
  'section',
  'aliases',
  'guid',
  'visibility',
  'tiers',
  'authors',
] as const;

type ExportedRow = Pick<ArticleTable, (typeof exportedColumns)[number]>;

async function articleBatch(
  executor: Executor,
  projectId: string,
  after: string,
): Promise<ExportedArticle[]> {
  const rows = await executor
    .selectFrom('articles')
    .select(exportedColumns)
    .where('project_id', '=', projectId)
    .where('slug', '>', after)
    .orderBy('slug')
    .limit(batchSize)
    .execute();
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const tagRows = await executor
    .selectFrom('article_tags')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .select(['article_tags.article_id', 'tags.name'])
    .where('article_tags.article_id', 'in', ids)
    .orderBy('tags.name_key')
    .execute();
  const variantRows = await executor
    .selectFrom('article_variants')
    .select(['article_id', 'key', 'title', 'excerpt', 'content'])
    .where('article_id', 'in', ids)
    .orderBy('key')
    .execute();
  return rows.map((row) => ({
    slug: row.slug,
    content: row.content,
    frontMatter: frontMatterOf(
      row,
      tagRows.filter((tag) => tag.article_id === row.id).map((tag) => tag.name),
      variantRows.filter((variant) => variant.article_id === row.id),
    ),
  }));
}

/** One article's front matter: every stored field, absent when null or empty. */
function frontMatterOf(
  row: ExportedRow,
  tags: string[],
  variants: Array<{
    article_id: string;
    key: string;
    title: string | null;
    excerpt: string | null;
    content: string | null;
  }>,
) {
  return withoutNulls({
    title: row.title,
    slug: row.slug,
    status: row.status,
    publishedAt: row.published_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    excerpt: row.excerpt,
    coverImage: row.cover_image,
    coverImageAlt: row.cover_image_alt,
    author: withoutNulls({ name: row.author_name, image: row.author_image }),
    lastUpdatedBy:
      row.last_updated_by_name === null
        ? null
        : withoutNulls({ name: row.last_updated_by_name, image: row.last_updated_by_image }),
    tags,
    // As stored: import keeps an seo object's null members, and so does this.
    seo: row.seo === null ? null : JSON.parse(row.seo),
    variants: variants.map(({ article_id: _id, ...variant }) => variant),
    // Where the article lives and how feeds know it: kept by a round trip.
    path: row.path,
    section: row.section,
    aliases: JSON.parse(row.aliases) as string[],
    guid: row.guid,
    visibility: row.visibility === 'public' ? null : row.visibility,
    tiers: JSON.parse(row.tiers) as string[],
    authors: (JSON.parse(row.authors) as Record<string, unknown>[]).map((author) => withoutNulls(author)),
  });
}

/**
 * Front matter, then the body exactly: import drops the one newline that follows the closing
 * fence, so a body that itself begins with a newline keeps it.
 */
function markdownFile(article: ExportedArticle): string {
  return `---\n${yaml(article.frontMatter)}---\n\n${article.content}`;
}

function yaml(value: unknown): string {
  // No folding of long lines, and multi-line texts in double quotes rather than block scalars:
  // import reads the front matter without the newline before its closing fence, which would cut
  // one trailing newline off a block scalar that ends it.
  return stringify(value, { lineWidth: 0, blockQuote: false });
}

/** The object without its null members and empty lists: absent and null import the same. */
function withoutNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(
      ([, member]) => member !== null && !(Array.isArray(member) && member.length === 0),
    ),
  ) as Partial<T>;
}
