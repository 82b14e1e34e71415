// What a members-only or paid article shows to readers who may not read it: its
// teaser, the part before the `<!--members-only-->` marker (empty without one). Feeds and the
// SEO metadata put into public pages never carry more: no content:encoded. The stored summary
// (the fallback description) of such an article is already cut from its teaser at import.
import { isRestricted, teaserContent } from '../content/public.ts';
import type { ArticleTable } from '../db/schema.ts';

/** Whether anyone may read the article in full (`public`, the default; `members` and `paid` are not). */
export function isPublic(article: Pick<ArticleTable, 'visibility'>): boolean {
  return !isRestricted(article.visibility);
}

/** The Markdown before the `<!--members-only-->` marker, or '' when the article has none. */
export const teaserOf = teaserContent;
