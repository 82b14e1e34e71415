// The analytics plugin: the tracking routes (ingest), the roll-ups of what they write and the
// cleanup beside a listening server (rollups), and the report routes (reports), on one database.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { bundledGeoDatabasePath, CountryLookup } from './ingest/geo.ts';
import { insightRoutes } from './reports/insight-routes.ts';
import { PageViewWriter } from './ingest/page-view-writer.ts';
import { statsRoutes } from './reports/routes.ts';
import { defaultRollupDelayMs, onRolledUpViews, scheduleRollUp } from './rollups/rollup-queue.ts';
import { startCleanup } from './rollups/retention.ts';
import { DailySalts } from './ingest/salts.ts';
import { trackRoutes } from './ingest/routes.ts';
import type { TrackingDeps } from './ingest/tracking.ts';

export interface AnalyticsOptions {
  db: Db;
  /** An MMDB country database to use instead of the bundled DB-IP one. */
  geoipDatabase?: string | null;
  /** Days raw page views are kept (deleted hourly past that); none: kept forever. */
  retentionDays?: number | null;
  /** Told of each article whose view count grew (the answer cache refreshes view counts). */
  onViews?: (projectId: string, slug: string) => void;
  /** How soon after a tracking write the rollups and view counts include it (rollup-queue.ts). */
  rollupDelayMs?: number;
}

export async function analyticsRoutes(app: FastifyInstance, options: AnalyticsOptions): Promise<void> {
  const { db } = options;
  const deps: TrackingDeps = {
    db,
    writer: new PageViewWriter(db, { rollupDelayMs: options.rollupDelayMs }),
    salts: new DailySalts(db),
    geo: options.geoipDatabase
      ? new CountryLookup(options.geoipDatabase, { eager: true })
      : new CountryLookup(bundledGeoDatabasePath()),
  };
  const stopViews = options.onViews ? onRolledUpViews(db, options.onViews) : () => {};
  // Entries left queued by a process that stopped before rolling them up (a crash) are summed soon
  // after the server starts, not only with the next page view or statistics read.
  app.addHook('onListen', async () => void scheduleRollUp(db, options.rollupDelayMs ?? defaultRollupDelayMs));
  app.addHook('onClose', async () => {
    await deps.writer.close().catch((error: unknown) => {
      // The queued entries stay in the database: the next instance rolls them up.
      app.log.warn({ err: error }, 'page views not rolled up at close');
    });
    stopViews();
  });
  // The cleanup of visitor ids and expired page views runs beside a listening server, never in a
  // request (apps built for tests, which never listen, leave it to their own calls).
  let stopCleanup: (() => Promise<void>) | null = null;
  app.addHook('onListen', async () => {
    stopCleanup ??= startCleanup(db, options.retentionDays ?? null, app.log);
  });
  app.addHook('onClose', async () => stopCleanup?.());

  await app.register(async (track) => trackRoutes(track, deps));
  insightRoutes(app, db);
  statsRoutes(app, db);
}
