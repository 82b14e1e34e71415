// The migrations of both databases, in order. Each takes the dialect so that the few statements
// that differ (full-text indexes) sit next to the ones that do not.
import { type Kysely, type Migration, Migrator } from 'kysely';
import type { Db, DialectName } from '../database.ts';

type DialectMigration = (dialect: DialectName) => Migration;

/**
 * A migration whose module is imported when it runs: a start on an up-to-date schema loads none
 * of them (one carries its own markdown-it, a megabyte of heap).
 */
function lazy<Name extends string>(
  load: () => Promise<Record<Name, DialectMigration>>,
  name: Name,
): DialectMigration {
  const made = async (dialect: DialectName) => (await load())[name](dialect);
  return (dialect) => ({
    up: async (db) => (await made(dialect)).up(db),
    down: async (db) => (await made(dialect)).down?.(db),
  });
}

export const migrations: Record<string, DialectMigration> = {
  '0001-content': lazy(() => import('./0001-content.ts'), 'content'),
  '0002-analytics': lazy(() => import('./0002-analytics.ts'), 'analytics'),
  '0003-change-notifications': lazy(() => import('./0003-change-notifications.ts'), 'changeNotifications'),
  '0004-search-text': lazy(() => import('./0004-search-text.ts'), 'searchText'),
  '0005-article-html': lazy(() => import('./0005-article-html.ts'), 'articleHtml'),
  '0006-insights': lazy(() => import('./0006-insights.ts'), 'insights'),
  '0007-covering-indexes': lazy(() => import('./0007-covering-indexes.ts'), 'coveringIndexes'),
  '0008-article-views': lazy(() => import('./0008-article-views.ts'), 'articleViews'),
  '0009-rollup-queue': lazy(() => import('./0009-rollup-queue.ts'), 'rollupQueue'),
  '0010-article-sets': lazy(() => import('./0010-article-sets.ts'), 'articleSets'),
  '0011-batched-view-notifications': lazy(
    () => import('./0011-batched-view-notifications.ts'),
    'batchedViewNotifications',
  ),
  '0012-analytics-settings': lazy(() => import('./0012-analytics-settings.ts'), 'analyticsSettings'),
  '0013-removed-articles': lazy(() => import('./0013-removed-articles.ts'), 'removedArticles'),
  '0014-tag-slugs': lazy(() => import('./0014-tag-slugs.ts'), 'tagSlugs'),
  '0015-site-paths': lazy(() => import('./0015-site-paths.ts'), 'sitePaths'),
  '0016-key-changes': lazy(() => import('./0016-key-changes.ts'), 'keyChanges'),
  '0017-publishing': lazy(() => import('./0017-publishing.ts'), 'publishing'),
  '0018-test-views': lazy(() => import('./0018-test-views.ts'), 'testViews'),
  '0019-realtime-by-id': lazy(() => import('./0019-realtime-by-id.ts'), 'realtimeById'),
  '0020-keyed-page-views': lazy(() => import('./0020-keyed-page-views.ts'), 'keyedPageViews'),
  '0021-key-scope-notifications': lazy(
    () => import('./0021-key-scope-notifications.ts'),
    'keyScopeNotifications',
  ),
  '0022-page-view-strings': lazy(() => import('./0022-page-view-strings.ts'), 'pageViewStrings'),
  '0023-page-view-string-sweep': lazy(
    () => import('./0023-page-view-string-sweep.ts'),
    'pageViewStringSweep',
  ),
  '0024-article-days': lazy(() => import('./0024-article-days.ts'), 'articleDays'),
  '0028-search-reads': lazy(() => import('./0028-search-reads.ts'), 'searchReads'),
  '0030-view-counts-notified': lazy(() => import('./0030-view-counts-notified.ts'), 'viewCountsNotified'),
  '0031-compact-page-views': lazy(() => import('./0031-compact-page-views.ts'), 'compactPageViews'),
  '0033-visitor-sets-unbound': lazy(() => import('./0033-visitor-sets-unbound.ts'), 'visitorSetsUnbound'),
  '0034-queue-seq-never-reused': lazy(
    () => import('./0034-queue-seq-never-reused.ts'),
    'queueSeqNeverReused',
  ),
  '0035-unannounced-index': lazy(() => import('./0035-unannounced-index.ts'), 'unannouncedIndex'),
  '0036-storage-index': lazy(() => import('./0036-storage-index.ts'), 'storageIndex'),
  '0037-order-version': lazy(() => import('./0037-order-version.ts'), 'orderVersion'),
  '0038-outbox-changes': lazy(() => import('./0038-outbox-changes.ts'), 'outboxChanges'),
  '0039-id-numbers': lazy(() => import('./0039-id-numbers.ts'), 'idNumbers'),
  '0040-page-view-rows': lazy(() => import('./0040-page-view-rows.ts'), 'pageViewRows'),
  '0041-visitor-entries': lazy(() => import('./0041-visitor-entries.ts'), 'visitorEntries'),
  '0042-article-day-numbers': lazy(() => import('./0042-article-day-numbers.ts'), 'articleDayNumbers'),
  '0043-packed-article-days': lazy(() => import('./0043-packed-article-days.ts'), 'packedArticleDays'),
  '0044-pending-events-order': lazy(() => import('./0044-pending-events-order.ts'), 'pendingEventsOrder'),
};

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db: db.kysely as Kysely<any>,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(Object.entries(migrations).map(([name, make]) => [name, make(db.dialect)])),
    },
  });
  let { error, results } = await migrator.migrateToLatest();
  // Kysely's migration lock is a no-op on SQLite: two processes opening a new file at once may
  // both try the first migration. Each runs in a transaction, so the loser applied nothing and
  // finds the winner's work when it tries again.
  if (error && db.dialect === 'sqlite' && /already exists/.test(String((error as Error).message))) {
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) throw error;
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}
