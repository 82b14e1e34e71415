// The JSON-LD of a project's published articles. Without `page`/`limit` every published article,
// written out as a stream a batch of rows at a time (50,000 articles are about 40 MB: never one
// string in memory); with them one page, an ordinary answer with `meta` and a `Link: rel="next"`.
// Either is script-safe JSON (script-safe-json.ts): each article's JSON-LD can be pasted into a page.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { findTagNamesByArticle } from '../content/public.ts';
import { seoProject } from './article-seo.ts';
import { resolveBaseUrl } from './base-url.ts';
import { articleJsonLd, type SeoSite, seoSite } from './metadata.ts';
import {
  countPublishedArticles,
  findPublishedMetadataPage,
  type MetadataRow,
  publishedMetadataBatches,
} from './queries.ts';
import type { StructuredDataQueryType } from './schemas.ts';
import { scriptSafeJson } from './script-safe-json.ts';

/** Articles read and written per step of the stream. */
const batchSize = 1000;
export const defaultStructuredDataLimit = 1000;

export interface StructuredDataPage {
  data: {
    project: ReturnType<typeof seoProject>;
    articles: Array<{ slug: string; structuredData: ReturnType<typeof articleJsonLd> }>;
    generatedAt: string;
  };
  meta: { page: number; limit: number; total: number; totalPages: number };
}

export type StructuredDataAnswer =
  | { kind: 'page'; body: StructuredDataPage }
  | { kind: 'stream'; etag: string; notModified: boolean; stream: Readable | null };

async function entries(db: Db, rows: MetadataRow[], site: SeoSite) {
  const names = await findTagNamesByArticle(
    db.kysely,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    slug: row.slug,
    structuredData: articleJsonLd(row, names.get(row.id) ?? [], site),
  }));
}

export async function structuredData(
  db: Db,
  project: Project,
  query: StructuredDataQueryType,
  request: { url: string; ifNoneMatch: string | undefined },
): Promise<StructuredDataAnswer> {
  const baseUrl = resolveBaseUrl(query.baseUrl, project);
  const site = seoSite(baseUrl, project);
  const now = new Date().toISOString();
  const counts = await countPublishedArticles(db.kysely, project.id, now);
  if (query.page !== undefined || query.limit !== undefined) {
    const page = query.page ?? 1;
    const limit = query.limit ?? defaultStructuredDataLimit;
    const offset = (page - 1) * limit;
    const rows =
      offset >= counts.total
        ? []
        : await findPublishedMetadataPage(db.kysely, project.id, now, { offset, limit }, counts);
    return {
      kind: 'page',
      body: {
        data: { project: seoProject(project), articles: await entries(db, rows, site), generatedAt: now },
        meta: { page, limit, total: counts.total, totalPages: Math.ceil(counts.total / limit) },
      },
    };
  }
  const etag = streamEtag(project, request.url, counts.total);
  if (etagMatches(request.ifNoneMatch, etag))
    return { kind: 'stream', etag, notModified: true, stream: null };
  const batches = publishedMetadataBatches(db.kysely, project.id, now, batchSize);
  // The first batch is read before anything is sent, so that a database error is still an
  // ordinary error answer; a failure later can only cut the stream short.
  const first = await batches.next();
  const head = `{"data":{"project":${scriptSafeJson(seoProject(project))},"articles":[`;
  const tail = `],"generatedAt":${scriptSafeJson(now)}}}`;
  async function* chunks(): AsyncGenerator<string> {
    let separator = '';
    let next = first;
    yield head;
    while (next.done !== true) {
      const part = (await entries(db, next.value, site)).map((entry) => scriptSafeJson(entry));
      if (part.length > 0) {
        yield separator + part.join(',');
        separator = ',';
      }
      next = await batches.next();
    }
    yield tail;
  }
  return { kind: 'stream', etag, notModified: false, stream: Readable.from(chunks(), { objectMode: false }) };
}

/**
 * The streamed answer's ETag, known before its body is: the project's content version (which
 * every content or project change bumps), the published count (which grows when a scheduled
 * article goes live, without a change of version) and the URL (baseUrl). Weak, since
 * `generatedAt` differs between two answers of the same content.
 */
function streamEtag(project: Project, url: string, publishedCount: number): string {
  const hash = createHash('sha1')
    .update(`${project.id}\u0000${project.content_version}\u0000${publishedCount}\u0000${url}`)
    .digest('base64url');
  return `W/"sd-${hash}"`;
}

/** Whether an If-None-Match header names the ETag (weak comparison, as for GET). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}
