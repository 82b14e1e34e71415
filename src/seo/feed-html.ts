// An article's Markdown as the HTML of a feed item: rendered by the shared markdown-it, then
// cleaned by sanitize-html to an allow-list (no scripts, event handlers, styles or `javascript:`
// URLs), with relative links and images made absolute, since a feed reader has no page to resolve them against.
import sanitizeHtml from 'sanitize-html';
import { renderMarkdown } from '../content/markdown.ts';
import { absoluteUrl } from './base-url.ts';

const allowedTags = [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins'];

const allowedAttributes: Record<string, string[]> = {
  a: ['href', 'title'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  ol: ['start'],
  td: ['colspan', 'rowspan'],
  th: ['colspan', 'rowspan', 'scope'],
  code: ['class'],
};

export function feedHtml(markdown: string, articleUrl: string): string {
  const absolute =
    (attribute: string) =>
    (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => {
      const value = attribs[attribute];
      if (value !== undefined) attribs[attribute] = absoluteUrl(value.trim(), articleUrl);
      return { tagName, attribs };
    };
  return sanitizeHtml(renderMarkdown(markdown), {
    allowedTags,
    allowedAttributes,
    // Fenced code keeps its `language-…` class, for highlighters; no other class survives.
    allowedClasses: { code: ['language-*'] },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    // An image whose source was refused is an empty box in a reader: leave it out.
    exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
    // Relative URLs are resolved before the scheme check, so that the check sees the final URL.
    transformTags: { a: absolute('href'), img: absolute('src') },
  });
}
