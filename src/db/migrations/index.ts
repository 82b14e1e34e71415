// The migrations of both databases, in order. Each takes the dialect so that the few statements
// that differ (full-text indexes) sit next to the ones that do not.
import { type Kysely, type Migration, Migrator } from 'kysely';
import type { Db, DialectName } from '../database.ts';
import { content } from './0001-content.ts';
import { analytics } from './0002-analytics.ts';
import { changeNotifications } from './0003-change-notifications.ts';
import { searchText } from './0004-search-text.ts';
import { articleHtml } from './0005-article-html.ts';
import { insights } from './0006-insights.ts';
import { coveringIndexes } from './0007-covering-indexes.ts';
import { articleViews } from './0008-article-views.ts';
import { rollupQueue } from './0009-rollup-queue.ts';
import { articleSets } from './0010-article-sets.ts';
import { batchedViewNotifications } from './0011-batched-view-notifications.ts';
import { analyticsSettings } from './0012-analytics-settings.ts';
import { removedArticles } from './0013-removed-articles.ts';
import { tagSlugs } from './0014-tag-slugs.ts';
import { sitePaths } from './0015-site-paths.ts';
import { keyChanges } from './0016-key-changes.ts';
import { publishing } from './0017-publishing.ts';
import { testViews } from './0018-test-views.ts';
import { realtimeById } from './0019-realtime-by-id.ts';
import { keyedPageViews } from './0020-keyed-page-views.ts';
import { keyScopeNotifications } from './0021-key-scope-notifications.ts';
import { pageViewStrings } from './0022-page-view-strings.ts';

type DialectMigration = (dialect: DialectName) => Migration;

export const migrations: Record<string, DialectMigration> = {
  '0001-content': content,
  '0002-analytics': analytics,
  '0003-change-notifications': changeNotifications,
  '0004-search-text': searchText,
  '0005-article-html': articleHtml,
  '0006-insights': insights,
  '0007-covering-indexes': coveringIndexes,
  '0008-article-views': articleViews,
  '0009-rollup-queue': rollupQueue,
  '0010-article-sets': articleSets,
  '0011-batched-view-notifications': batchedViewNotifications,
  '0012-analytics-settings': analyticsSettings,
  '0013-removed-articles': removedArticles,
  '0014-tag-slugs': tagSlugs,
  '0015-site-paths': sitePaths,
  '0016-key-changes': keyChanges,
  '0017-publishing': publishing,
  '0018-test-views': testViews,
  '0019-realtime-by-id': realtimeById,
  '0020-keyed-page-views': keyedPageViews,
  '0021-key-scope-notifications': keyScopeNotifications,
  '0022-page-view-strings': pageViewStrings,
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
