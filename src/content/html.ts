// An article's Markdown as safe HTML: rendered by the shared markdown-it, then cleaned by
// sanitize-html to an allow-list (no scripts, event handlers, styles or `javascript:` URLs).
// Stored with the article at import (its `html` field) and used by the RSS feed, which makes
// links absolute through `resolveUrl`.
import { createRequire } from 'node:module';
import type { Token } from 'markdown-it';
import type sanitizeHtml from 'sanitize-html';
import { renderMarkdown, renderTokens } from './markdown.ts';

let sanitizer: { sanitize: typeof sanitizeHtml; allowedTags: string[] } | undefined;

/**
 * Loaded on first use: sanitize-html and its parsers (htmlparser2, postcss) are 2 MB of heap that
 * only imports, writes, teasers and feeds need.
 */
function loadSanitizer(): { sanitize: typeof sanitizeHtml; allowedTags: string[] } {
  if (sanitizer !== undefined) return sanitizer;
  const sanitize = createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml;
  sanitizer = { sanitize, allowedTags: [...sanitize.defaults.allowedTags, 'img', 'del', 'ins'] };
  return sanitizer;
}

const allowedAttributes: Record<string, string[]> = {
  a: ['href', 'title'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  ol: ['start'],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan', 'scope'],
  code: ['class'],
};

export interface HtmlOptions {
  /** Rewrites each link and image URL before the scheme check (the feed makes them absolute). */
  resolveUrl?: (url: string) => string;
}

export function sanitizedHtml(markdown: string, options: HtmlOptions = {}): string {
  return sanitized(renderMarkdown(markdown), options);
}

/** sanitizedHtml of the tokens parseMarkdown gave, for a caller that reads them too. */
export function sanitizedHtmlOfTokens(tokens: Token[]): string {
  return sanitized(renderTokens(tokens), {});
}

function sanitized(html: string, options: HtmlOptions): string {
  const { resolveUrl } = options;
  const resolve =
    (attribute: string) =>
    (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => {
      const value = attribs[attribute];
      if (value !== undefined && resolveUrl) attribs[attribute] = resolveUrl(value.trim());
      return { tagName, attribs };
    };
  const { sanitize, allowedTags } = loadSanitizer();
  return sanitize(html, {
    allowedTags,
    allowedAttributes,
    // Fenced code keeps its `language-…` class, for highlighters; no other class survives.
    allowedClasses: { code: ['language-*'] },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    // An image whose source was refused is an empty box: leave it out.
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
    // Relative URLs are resolved before the scheme check, so that the check sees the final URL.
    transformTags: resolveUrl ? { a: resolve('href'), img: resolve('src') } : {},
  });
}
