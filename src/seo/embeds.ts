// Embeds are stored as the generator's HTML: a YouTube or Vimeo iframe, a gist's
// script. The feed's sanitiser removes iframes and scripts, which left nothing where the video or
// the code was; before it runs, each embed becomes a link to the embedded page.
// The Markdown is changed only inside raw HTML, as markdown-it's own token stream finds it (HTML
// blocks, and paragraphs with inline HTML), so that an embed shown in code stays code.
import { parseMarkdown } from '../content/public.ts';

const embedTag = /<(?:iframe|script)\b/i;
// A start tag's attributes, where a quoted value may hold `>`. An element's body is looked for
// only up to the next start tag of its kind, so that many unclosed tags cost linear time.
const attributes = String.raw`((?:[^>"']|"[^"]*"|'[^']*')*)`;
const iframe = new RegExp(
  String.raw`<iframe\b${attributes}>(?:(?:(?!<iframe\b)[\s\S])*?<\/iframe\s*>)?`,
  'gi',
);
const script = new RegExp(String.raw`<script\b${attributes}>(?:(?!<script\b)[\s\S])*?<\/script\s*>`, 'gi');

/** `markdown` with each embed of its raw HTML replaced by a link to the embedded page. */
export function embedsAsLinks(markdown: string): string {
  if (!embedTag.test(markdown)) return markdown;
  // Line numbers as markdown-it counts them: it reads \r\n and \r as line ends.
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const ranges: Array<{ start: number; end: number; block: boolean }> = [];
  for (const token of parseMarkdown(lines.join('\n'))) {
    if (token.map === null) continue;
    const [start, end] = token.map;
    if (token.type === 'html_block' && embedTag.test(token.content)) ranges.push({ start, end, block: true });
    const children = token.type === 'inline' ? (token.children ?? []) : [];
    const inlineEmbed = children.some(
      (child) => child.type === 'html_inline' && embedTag.test(child.content),
    );
    // A paragraph that also shows an embed tag in a code span is left alone: its lines hold both.
    const codeEmbed = children.some((child) => child.type === 'code_inline' && embedTag.test(child.content));
    if (inlineEmbed && !codeEmbed) ranges.push({ start, end, block: false });
  }
  // From the last range back, so that earlier line numbers stay right as lines change.
  for (const { start, end, block } of ranges.reverse()) {
    const replaced = replaceEmbeds(lines.slice(start, end).join('\n'), block);
    lines.splice(start, end - start, ...replaced.split('\n'));
  }
  return lines.join('\n');
}

/** Raw HTML with each iframe of an http(s) page and each gist script replaced by a link. */
export function replaceEmbeds(html: string, block: boolean): string {
  const link = (href: string) => {
    const anchor = `<a href="${escapeHtml(href)}">${escapeHtml(href)}</a>`;
    // In an HTML block a paragraph keeps the block an HTML block, as the iframe line was.
    return block ? `<p>${anchor}</p>` : anchor;
  };
  return html
    .replace(iframe, (element, attributes: string) => {
      const target = embeddedPage(srcOf(attributes), 'iframe');
      return target === null ? element : link(target);
    })
    .replace(script, (element, attributes: string) => {
      const target = embeddedPage(srcOf(attributes), 'script');
      return target === null ? element : link(target);
    });
}

/**
 * The page a reader should open for an embed's `src`: the YouTube watch page, the Vimeo page,
 * the gist (with its file's anchor); another http(s) iframe links to its own page; anything else
 * (another script, a non-web URL) is null and left to the sanitiser.
 */
export function embeddedPage(src: string | null, kind: 'iframe' | 'script'): string | null {
  if (src === null) return null;
  const url = URL.parse(src.startsWith('//') ? `https:${src}` : src);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  const host = url.hostname.toLowerCase().replace(/^(www|m)\./, '');
  if (kind === 'script') return host === 'gist.github.com' ? gistPage(url) : null;
  if (host === 'youtube.com' || host === 'youtube-nocookie.com') return youtubePage(url) ?? url.href;
  if (host === 'player.vimeo.com') return vimeoPage(url) ?? url.href;
  return url.href;
}

function youtubePage(url: URL): string | null {
  const video = /^\/embed\/([\w-]+)\/?$/.exec(url.pathname)?.[1];
  if (video === undefined) return null;
  const list = url.searchParams.get('list');
  if (video === 'videoseries' && list !== null)
    return `https://www.youtube.com/playlist?list=${encodeURIComponent(list)}`;
  // A start time survives as the watch page's `t`, so the link opens where the embed did.
  const start = Number.parseInt(url.searchParams.get('start') ?? '', 10);
  const time = Number.isSafeInteger(start) && start > 0 ? `&t=${start}s` : '';
  return `https://www.youtube.com/watch?v=${video}${time}`;
}

function vimeoPage(url: URL): string | null {
  const video = /^\/video\/(\d+)\/?$/.exec(url.pathname)?.[1];
  if (video === undefined) return null;
  // An unlisted video's embed carries its hash as `h`; its page is /ID/HASH.
  const hash = url.searchParams.get('h');
  return hash !== null && /^\w+$/.test(hash)
    ? `https://vimeo.com/${video}/${hash}`
    : `https://vimeo.com/${video}`;
}

function gistPage(url: URL): string | null {
  const gist = /^\/([\w-]+\/)?(\w+)\.js$/.exec(url.pathname);
  if (gist === null) return null;
  const file = url.searchParams.get('file');
  // GitHub's anchor of one file of a gist: `file-` and its name, lower case, non-alphanumerics as `-`.
  const anchor = file === null || file === '' ? '' : `#file-${file.toLowerCase().replace(/[^a-z0-9]/g, '-')}`;
  return `https://gist.github.com/${gist[1] ?? ''}${gist[2]}${anchor}`;
}

/** The `src` attribute of a tag's attribute text, its character references decoded, or null. */
function srcOf(attributes: string): string | null {
  const match = /(?:^|\s)src\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i.exec(attributes);
  if (match === null) return null;
  return decodeEntities((match[1] ?? match[2] ?? match[3]).trim());
}

function decodeEntities(value: string): string {
  // A reference past U+10FFFF is no character: kept as written (the URL then fails to parse).
  const character = (code: number, written: string) =>
    code <= 0x10ffff ? String.fromCodePoint(code) : written;
  return value
    .replace(/&#(\d{1,7});/g, (written, code: string) => character(Number(code), written))
    .replace(/&#x([0-9a-f]{1,6});/gi, (written, code: string) =>
      character(Number.parseInt(code, 16), written),
    )
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
