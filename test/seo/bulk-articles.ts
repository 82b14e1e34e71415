// Inserts many minimal published articles straight into the database, for the tests that need a
// sitemap of the protocol's full size or many search texts: going through the import would compute
// text statistics of each article and take far longer.
import { rebuildArticleSets } from '../../src/content/article-set-queries.ts';
import type { Db } from '../../src/db/database.ts';
import type { ArticleInsertRow, Project } from '../../src/db/schema.ts';
import { bumpContentVersion } from '../../src/projects/queries.ts';

/**
 * `count` published articles `bulk-0` … with publishedAt one second apart from 2020-01-01, each
 * announced for it (article.published was sent); `text(i)`,
 * when given, is the content and search text of each (else none and `bulk i`).
 */
export async function insertPublishedArticles(
  db: Db,
  project: Project,
  count: number,
  text?: (i: number) => string,
): Promise<void> {
  const start = Date.UTC(2020, 0, 1);
  const batchSize = 500;
  await db.kysely.transaction().execute(async (trx) => {
    for (let first = 0; first < count; first += batchSize) {
      const rows: Array<ArticleInsertRow & { announced_published_at: string }> = [];
      for (let i = first; i < Math.min(count, first + batchSize); i++) {
        const moment = new Date(start + i * 1000).toISOString();
        rows.push({
          id: `${project.id}-${String(i).padStart(6, '0')}`,
          project_id: project.id,
          slug: `bulk-${i}`,
          title: `Bulk ${i}`,
          title_key: `bulk ${i}`,
          excerpt: null,
          cover_image: null,
          content: text?.(i) ?? '',
          status: 'published',
          published_at: moment,
          created_at: moment,
          updated_at: moment,
          word_count: 0,
          character_count: 0,
          read_time_minutes: 0,
          summary: '',
          search_text: text?.(i) ?? `bulk ${i}`,
          author_name: 'Bulk',
          author_image: null,
          last_updated_by_name: null,
          last_updated_by_image: null,
          seo: null,
          storage_bytes: 0,
          content_hash: String(i),
          ordinal: i,
          path: null,
          section: null,
          cover_image_alt: null,
          aliases: '[]',
          guid: null,
          visibility: 'public',
          tiers: '[]',
          authors: '[]',
          // Announced already, as a blog in service is: the server has no event to fan out for them.
          announced_published_at: moment,
        });
      }
      await trx.insertInto('articles').values(rows).execute();
    }
    await rebuildArticleSets(trx, project.id);
    await bumpContentVersion(trx, project.id);
  });
}
