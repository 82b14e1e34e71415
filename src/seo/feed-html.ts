// An article's Markdown as the HTML of a feed item: the content feature's sanitised HTML, with
// embeds turned into links first (the sanitiser removes iframes and scripts), and relative links
// and images made absolute against the article's URL, since a feed reader has no page to resolve
// them against (a path starting with `/` against the site root).
import { sanitizedHtml } from '../content/public.ts';
import { absoluteUrl } from './base-url.ts';
import { embedsAsLinks } from './embeds.ts';

export function feedHtml(markdown: string, articleUrl: string): string {
  return sanitizedHtml(embedsAsLinks(markdown), { resolveUrl: (url) => absoluteUrl(url, articleUrl) });
}
