// An article's Markdown as the HTML of a feed item: the content feature's sanitised HTML, with
// relative links and images made absolute, since a feed reader has no page to resolve them against.
import { sanitizedHtml } from '../content/public.ts';
import { absoluteUrl } from './base-url.ts';

export function feedHtml(markdown: string, articleUrl: string): string {
  return sanitizedHtml(markdown, { resolveUrl: (url) => absoluteUrl(url, articleUrl) });
}
