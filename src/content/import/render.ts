// What the import stores of an article's Markdown: its HTML, text statistics, the summary and the
// search text, computed from the article alone (so that a thread of its own can do it, render-ahead.ts).
import { sanitizedHtmlOfTokens } from '../html.ts';
import { parseMarkdown } from '../markdown.ts';
import { isRestricted, teaserContent } from '../members-teaser.ts';
import { searchTextOf } from '../search-text.ts';
import { summarize, textStats, textStatsOfTokens } from '../text-stats.ts';
import { articleStorageBytes, contentHash } from './digest.ts';
import type { ArticleInput } from './records.ts';

export interface RenderedArticle {
  html: string;
  wordCount: number;
  characterCount: number;
  readTimeMinutes: number;
  summary: string;
  searchText: string;
}

/** An article ready to be stored: what it is, its hash and size, and its Markdown rendered. */
export interface PreparedArticle {
  input: ArticleInput;
  hash: string;
  storageBytes: number;
  rendered: RenderedArticle;
}

export function prepare(article: ArticleInput, hash = contentHash(article)): PreparedArticle {
  return {
    input: article,
    hash,
    storageBytes: articleStorageBytes(article),
    rendered: renderArticle(article),
  };
}

export function renderArticle(article: ArticleInput): RenderedArticle {
  // Parsed once for both: the statistics read the tokens before rendering writes image alt texts into them.
  const tokens = parseMarkdown(article.content);
  const stats = textStatsOfTokens(tokens, { hasCoverImage: article.coverImage !== null });
  const html = sanitizedHtmlOfTokens(tokens);
  // The fallback meta description of a members-only article shows no more than its teaser, and
  // search finds it only by what anyone may read: a match in the members' part would tell a
  // public key what that part says.
  const publicText = isRestricted(article.visibility ?? 'public')
    ? textStats(teaserContent(article.content)).plainText
    : stats.plainText;
  return {
    html,
    wordCount: stats.wordCount,
    characterCount: stats.characterCount,
    readTimeMinutes: stats.readTimeMinutes,
    summary: summarize(publicText, 160),
    searchText: searchTextOf(article.title, article.excerpt, publicText),
  };
}
