// What other features may use of content: the one module seo/ and analytics/ import from it
// (the ESLint floors refuse any other), so that content's files can change without them.

/** The reported status of an article (`scheduled` derived from a future publishedAt), in code and as SQL. */
export { hasReportedStatus, type ReportedStatus, reportedStatus } from './article-status.ts';
/** Each article's tag names, ordered by name: the keywords of its SEO metadata and feed categories. */
export { findTagNamesByArticle } from './article-queries.ts';
/** An article's Markdown as sanitised HTML (a feed makes its links absolute). */
export { sanitizedHtml } from './html.ts';
/** Text cut at a word boundary with `…`, as article summaries are. */
export { summarize } from './text-stats.ts';
/** Whether a stored URL may become a link (http(s) or a site path, never `javascript:`). */
export { isWebLink } from './web-link.ts';
/** The error answers of a read and what public keys see of articles, said in SEO's route descriptions. */
export { errorResponses, publishedOnlyRule } from './routes.ts';
/** Where an article lives: its own path or the project's URL pattern, and links resolved against its URL. */
export { articlePath, articleUrl, resolveAgainstArticle, type UrlArticle } from './article-url.ts';
/** Whether a stored time zone is one Intl knows: SEO reads any other as UTC rather than fail. */
export { isTimeZone } from './article-url.ts';
/** The shared markdown-it token stream: the feed finds the HTML blocks that hold embeds in it. */
export { parseMarkdown } from './markdown.ts';
/** Markdown as plain text: a feed's text summary of a members-only article's teaser. */
export { plainTextOf } from './text-stats.ts';
/** What readers without access see of a members-only or paid article: the part before `<!--members-only-->`. */
export { isRestricted, teaserContent, teaserHtml } from './members-teaser.ts';
/** Draft previews: the token parameter, the article a token reads (or a 403 naming `preview`), and their rule. */
export { PreviewToken } from './preview-schemas.ts';
export { previewedArticleId } from './previews.ts';
export { previewReadRule } from './preview-descriptions.ts';
