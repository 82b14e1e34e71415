// `folio export --analytics`: a project's raw page views, one JSON object a line (NDJSON), for a
// range of UTC days. Read in one snapshot a batch at a time and written with the file's
// backpressure, so memory stays bounded whatever the count. There is no IP to leave out: none is
// stored (a visitor id is a salted hash of the day).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { ConfigError } from '../config.ts';
import type { Db } from '../db/database.ts';
import { readSnapshot } from '../db/read-snapshot.ts';
import {
  type PageViewCursor,
  type PageViewRange,
  pageViewBatch,
  type ReadPageView,
} from '../db/page-view-reads.ts';
import { NotFoundError } from '../errors.ts';
import { findProjectBySlug } from '../projects/queries.ts';

export type { PageViewRange as DayRange } from '../db/page-view-reads.ts';

const batchSize = 1000;

export async function exportPageViews(
  db: Db,
  projectSlug: string,
  file: string,
  days: PageViewRange,
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
      let cursor: PageViewCursor | null = null;
      for (;;) {
        const { views, next } = await pageViewBatch(executor, project.id, days, cursor, batchSize);
        for (const row of views) {
          if (!out.write(`${JSON.stringify(pageViewRecord(row))}\n`)) await once(out, 'drain');
        }
        count += views.length;
        if (next === null) break;
        cursor = next;
      }
    } finally {
      out.end();
      await once(out, 'close');
    }
    return { pageViews: count };
  });
}

/** The API's names and units (seconds, percent), as the tracking request sent them. */
function pageViewRecord(row: ReadPageView) {
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
