// A Ghost post's HTML as Folio's Markdown (turndown). Three things Ghost's HTML holds that a plain
// HTML-to-Markdown conversion would lose or leave pointing nowhere:
// - the public-preview divider `<!--members-only-->` (the paywall card of the Lexical and Mobiledoc
//   editors), an HTML comment turndown drops: kept on a line of its own where it was, so that
//   public keys can be served the part before it;
// - embed cards (YouTube, Vimeo, Twitter …) and video/audio players, which Markdown cannot write:
//   kept as their HTML, as Ghost publishes them;
// - the site's own URLs, which Ghost exports as `__GHOST_URL__/…` (and older exports as `/content/…`):
//   made absolute against the site URL given to the import, else left as site-root paths.
import { createRequire } from 'node:module';
import type TurndownService from 'turndown';

/** Ghost's public-preview divider, as its renderers write it. */
export const MEMBERS_ONLY_MARKER = '<!--members-only-->';
const MARKER_RE = /<!--\s*members-only\s*-->/;

/** Ghost writes its own site's URLs with this placeholder. */
const GHOST_URL = '__GHOST_URL__';

/** The part of turndown's DOM (domino) the rules below use; the project compiles without the DOM library. */
interface DomElement {
  nodeName: string;
  outerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

let Turndown: typeof TurndownService | undefined;
const converters = new Map<string, TurndownService>();

/** `__GHOST_URL__` replaced by the site URL (no trailing slash), or removed without one: a site-root path. */
export function withSiteUrl(value: string, siteUrl: string | null): string {
  return value.replaceAll(GHOST_URL, siteUrl ?? '');
}

/** A link or image of the site: `__GHOST_URL__` replaced, and a site-root path made absolute when the site URL is known. */
export function resolved(href: string, siteUrl: string | null): string {
  const value = withSiteUrl(href.trim(), siteUrl);
  return siteUrl !== null && value.startsWith('/') && !value.startsWith('//') ? `${siteUrl}${value}` : value;
}

/** The Markdown link destination turndown writes: `<`, `>`, `(`, `)` escaped, in `<…>` with a space. */
function destination(href: string): string {
  const escaped = href.replace(/([<>()])/g, '\\$1');
  return escaped.includes(' ') ? `<${escaped}>` : escaped;
}

function titlePart(node: DomElement): string {
  const title = (node.getAttribute('title') ?? '').replace(/(\n+\s*)+/g, '\n');
  return title ? ` "${title.replace(/"/g, '\\"')}"` : '';
}

/** The HTML Ghost publishes for a card Markdown cannot hold (embeds, players), with its URLs resolved. */
function keptHtml(node: DomElement, siteUrl: string | null): string {
  for (const element of [node, ...node.querySelectorAll('[src], [href], [poster]')]) {
    for (const attribute of ['src', 'href', 'poster']) {
      const value = element.getAttribute(attribute);
      if (value !== null) element.setAttribute(attribute, resolved(value, siteUrl));
    }
  }
  return `\n\n${node.outerHTML}\n\n`;
}

const EMBED_CARD_RE = /\bkg-(embed|video|audio)-card\b/;

/** Loaded on first use: turndown and its DOM take ~80 ms to load, which every other CLI command would pay. */
function converter(siteUrl: string | null): TurndownService {
  const known = converters.get(siteUrl ?? '');
  if (known !== undefined) return known;
  Turndown ??= createRequire(import.meta.url)('turndown') as typeof TurndownService;
  const service = new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  // Code injected into a post (HTML cards) is not text: without this, its source would become prose.
  service.remove(['script', 'style', 'noscript']);
  service.addRule('ghostEmbed', {
    filter: (node) =>
      (node.nodeName === 'FIGURE' && EMBED_CARD_RE.test(node.getAttribute('class') ?? '')) ||
      ['IFRAME', 'VIDEO', 'AUDIO'].includes(node.nodeName),
    replacement: (_content, node) => keptHtml(node as unknown as DomElement, siteUrl),
  });
  service.addRule('membersOnly', {
    filter: (node) => node.nodeName === DIVIDER_ELEMENT.toUpperCase(),
    replacement: () => `\n\n${MEMBERS_ONLY_MARKER}\n\n`,
  });
  service.addRule('ghostImage', {
    filter: 'img',
    replacement: (_content, node) => {
      const element = node as unknown as DomElement;
      const src = resolved(element.getAttribute('src') ?? '', siteUrl);
      const alt = service.escape((element.getAttribute('alt') ?? '').replace(/(\n+\s*)+/g, '\n'));
      return src ? `![${alt}](${destination(src)}${titlePart(element)})` : '';
    },
  });
  service.addRule('ghostLink', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const element = node as unknown as DomElement;
      const href = resolved(element.getAttribute('href')!, siteUrl);
      return `[${content}](${destination(href)}${titlePart(element)})`;
    },
  });
  converters.set(siteUrl ?? '', service);
  return service;
}

/** Stands for the divider while turndown converts the HTML (which drops comments); written back by the rule below. */
const DIVIDER_ELEMENT = 'folio-members-only';

/** A post's HTML as Markdown, its members-only divider kept on a line of its own. */
export function htmlToMarkdown(html: string, siteUrl: string | null = null): string {
  const withDivider = withSiteUrl(html, siteUrl).replace(
    MARKER_RE,
    // With text: turndown drops an empty element before any rule sees it.
    `<${DIVIDER_ELEMENT}>-</${DIVIDER_ELEMENT}>`,
  );
  return converter(siteUrl).turndown(withDivider);
}
