// Raw page views are kept for a configurable number of days (ANALYTICS_RETENTION_DAYS, default
// 400); their rollups stay forever. Expired rows are deleted a small batch at a time, each batch its
// own short statement, so that neither database holds a long write lock or a huge transaction.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.ts';
import { deleteExpiredPageViews } from './queries/delete-expired-page-views.ts';
import { shiftDay, utcDay } from './visitor.ts';

const batchSize = 2000;
const everyMs = 60 * 60 * 1000;
const firstAfterMs = 60 * 1000;

/** The first day whose raw page views are kept: today and the `retentionDays − 1` days before it. */
export function firstRetainedDay(retentionDays: number, now: Date): string {
  return shiftDay(utcDay(now), -(retentionDays - 1));
}

/** Deletes every page view of a day before the retained ones, in batches; returns how many went. */
export async function deleteExpired(
  db: Db,
  retentionDays: number,
  now: Date,
  options: { batchSize?: number } = {},
): Promise<number> {
  const beforeDay = firstRetainedDay(retentionDays, now);
  const limit = options.batchSize ?? batchSize;
  const projects = await db.kysely.selectFrom('projects').select('id').orderBy('id').execute();
  let deleted = 0;
  for (const { id } of projects) {
    for (;;) {
      const count = await deleteExpiredPageViews(db.kysely, id, beforeDay, limit);
      deleted += count;
      if (count < limit) break;
      // Let the requests waiting meanwhile run between two batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return deleted;
}

/** Runs deleteExpired a minute after start, then every hour, one run at a time. */
export function startRetention(db: Db, retentionDays: number, log: FastifyBaseLogger): () => void {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= deleteExpired(db, retentionDays, new Date())
      .then((count) => {
        if (count > 0) log.info({ deleted: count, retentionDays }, 'expired page views deleted');
      })
      .catch((error: unknown) => log.error({ err: error }, 'deleting expired page views failed'))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(run, firstAfterMs);
  const timer = setInterval(run, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
