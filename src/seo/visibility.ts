// What a members-only or paid article shows to readers who may not read it (contract §13): its
// teaser, the part before the `<!--members-only-->` marker (empty without one). Feeds and the
// SEO metadata put into public pages never carry more: no content:encoded, and a summary made of
// the teaser alone, since the stored summary is cut from the whole text.
// The content API gets its own teaser function in content/public.ts; until it lands, this one is
// the same rule for SEO (the marker as Ghost writes it, spaces inside the comment allowed).
import { plainTextOf, summarize } from '../content/public.ts';
import type { ArticleTable, Executor } from '../db/schema.ts';

const membersOnlyMarker = /<!--\s*members-only\s*-->/;

/** Whether anyone may read the article in full (`public`, the default; `members` and `paid` are not). */
export function isPublic(article: Pick<ArticleTable, 'visibility'>): boolean {
  return article.visibility === 'public';
}

/** The Markdown before the `<!--members-only-->` marker, or '' when the article has none. */
export function teaserOf(markdown: string): string {
  const marker = membersOnlyMarker.exec(markdown);
  return marker === null ? '' : markdown.slice(0, marker.index).trimEnd();
}

/** The summary a non-public article shows: its teaser's plain text, cut as stored summaries are. */
export function teaserSummary(markdown: string): string {
  return summarize(plainTextOf(teaserOf(markdown)), 160);
}

type SummaryRow = Pick<ArticleTable, 'id' | 'visibility' | 'summary'>;

/** Rows that carry their content, with the summary of each non-public one made of its teaser. */
export function withTeaserSummaries<R extends SummaryRow & Pick<ArticleTable, 'content'>>(rows: R[]): R[] {
  return rows.map((row) => (isPublic(row) ? row : { ...row, summary: teaserSummary(row.content) }));
}

/**
 * Rows read without their content (structured data, up to thousands at a time), with the summary
 * of each non-public one made of its teaser: their contents are read in one query, only when the
 * rows hold such an article.
 */
export async function withTeaserSummariesOf<R extends SummaryRow>(
  executor: Executor,
  rows: R[],
): Promise<R[]> {
  const hidden = rows.filter((row) => !isPublic(row)).map((row) => row.id);
  if (hidden.length === 0) return rows;
  const contents = await executor
    .selectFrom('articles')
    .select(['articles.id', 'articles.content'])
    .where('articles.id', 'in', hidden)
    .execute();
  const summaries = new Map(contents.map((row) => [row.id, teaserSummary(row.content)]));
  return rows.map((row) => (isPublic(row) ? row : { ...row, summary: summaries.get(row.id) ?? '' }));
}
