// `folio export --analytics`: a project's raw page views, one JSON object a line (NDJSON), for a
// range of UTC days. Read in one snapshot a batch at a time and written with the file's
// backpressure, so memory stays bounded whatever the count. There is no IP to leave out: none is
// stored (a visitor id is a salted hash of the day).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { ConfigError } from '../config.ts';
import type { Db } from '../db/database.ts';
import { readSnapshot } from '../db/read-snapshot.ts';
import { withPageViewStrings } from '../db/page-view-strings.ts';
import type { Executor } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import { findProjectBySlug } from '../projects/queries.ts';

export interface DayRange {
  from: string | null;
  to: string | null;
}

const batchSize = 1000;

export async function exportPageViews(
  db: Db,
  projectSlug: string,
  file: string,
  days: DayRange,
): Promise<{ pageViews: number }> {
  return readSnapshot(db, async (executor) => {
    const project = await findProjectBySlug(executor, projectSlug);
    if (project === undefined) throw new NotFoundError(`Project '${projectSlug}' not found`);
    // 'wx': an existing file is never overwritten.
    const out = createWriteStream(file, { flags: 'wx' });
    await Promise.race([once(out, 'open'), once(out, 'error')]).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        error.code === 'EEXIST'
          ? `${file} exists: choose a new file`
          : `Cannot write ${file}: ${error.message}`,
      );
    });
    let count = 0;
    try {
      let after: { day: string; id: string } | null = null;
      for (;;) {
        const rows = await pageViewBatch(executor, project.id, days, after);
        if (rows.length === 0) break;
        for (const row of rows) {
          if (!out.write(`${JSON.stringify(pageViewRecord(row))}\n`)) await once(out, 'drain');
        }
        count += rows.length;
        const last = rows[rows.length - 1];
        after = { day: last.day, id: last.id };
      }
    } finally {
      out.end();
      await once(out, 'close');
    }
    return { pageViews: count };
  });
}

async function pageViewBatch(
  executor: Executor,
  projectId: string,
  days: DayRange,
  after: { day: string; id: string } | null,
) {
  let query = executor
    .selectFrom('page_views')
    .leftJoin('articles', 'articles.id', 'page_views.article_id')
    .selectAll('page_views')
    .select('articles.slug')
    .where('page_views.project_id', '=', projectId);
  if (days.from !== null) query = query.where('page_views.day', '>=', days.from);
  if (days.to !== null) query = query.where('page_views.day', '<=', days.to);
  if (after !== null) {
    // A row-value comparison: both databases seek the (project, day, id) index to it, where an OR
    // of the two conditions would scan from the first day at every batch.
    query = query.where((eb) =>
      eb(eb.refTuple('page_views.day', 'page_views.id'), '>', eb.tuple(after.day, after.id)),
    );
  }
  const rows = await query.orderBy('page_views.day').orderBy('page_views.id').limit(batchSize).execute();
  return withPageViewStrings(executor, rows);
}

type PageViewRow = Awaited<ReturnType<typeof pageViewBatch>>[number];

/** The API's names and units (seconds, percent), as the tracking request sent them. */
function pageViewRecord(row: PageViewRow) {
  return {
    id: row.id,
    articleId: row.article_id,
    slug: row.slug,
    day: row.day,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    visitorId: row.visitor_id,
    sessionId: row.session_id,
    source: row.source,
    country: row.country,
    timeOnPage: Number(row.time_on_page_ms) / 1000,
    scrollDepth: Number(row.scroll_depth_centi) / 100,
    exitPosition: row.exit_position,
    bounced: row.bounced === null ? null : Number(row.bounced) === 1,
    screenWidth: row.screen_width,
    screenHeight: row.screen_height,
    eventCount: Number(row.event_count),
    pageUrl: row.page_url,
    pageTitle: row.page_title,
    referrer: row.referrer,
    utmSource: row.utm_source,
    utmMedium: row.utm_medium,
    utmCampaign: row.utm_campaign,
    utmTerm: row.utm_term,
    utmContent: row.utm_content,
    events: JSON.parse(row.events),
  };
}
