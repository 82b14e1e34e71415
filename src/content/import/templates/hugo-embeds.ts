// The HTML Hugo's embedded shortcode templates emit (tpl/tplimpl/embedded/templates/_shortcodes), on one
// line each so that the stored Markdown keeps its line count and a block stays one HTML block.

import { escapeHtml, markdownify } from './common.ts';
import type { ShortcodeArgs } from './hugo-parse.ts';

const wrapperStyle = 'position: relative; padding-bottom: 56.25%; height: 0; overflow: hidden;';
const frameStyle = 'position: absolute; top: 0; left: 0; width: 100%; height: 100%; border:0;';

function get(args: ShortcodeArgs, name: string, position?: number): string | undefined {
  const value = args.named.get(name) ?? (position === undefined ? undefined : args.positional[position]);
  return value === '' ? undefined : value;
}

/** Hugo's `in (slice "true" true 1)` / `in (slice "false" false 0)` tests; undefined: neither. */
function flag(args: ShortcodeArgs, name: string): boolean | undefined {
  const value = args.named.get(name);
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

function plainify(html: string): string {
  return html.replace(/<[^>]*>/g, '');
}

export interface EmbedOptions {
  youtubePrivacyEnhanced?: boolean;
  vimeoDnt?: boolean;
}

/** youtube.html; null without an id. */
export function youtubeHtml(args: ShortcodeArgs, options: EmbedOptions): string | null {
  const id = get(args, 'id', 0);
  if (!id) return null;
  const autoplay = flag(args, 'autoplay') === true ? 1 : 0;
  const controls = flag(args, 'controls') === false ? 0 : 1;
  const loop = flag(args, 'loop') === true ? 1 : 0;
  const mute = flag(args, 'mute') === true || autoplay ? 1 : 0;
  const params: Record<string, string | number> = {
    autoplay,
    controls,
    end: get(args, 'end') ?? 0,
    loop,
    mute,
    start: get(args, 'start') ?? 0,
  };
  if (loop) params.playlist = id;
  // querify sorts the keys.
  const query = Object.keys(params)
    .sort()
    .map((key) => `${key}=${encodeURIComponent(String(params[key]))}`)
    .join('&');
  const host = options.youtubePrivacyEnhanced ? 'www.youtube-nocookie.com' : 'www.youtube.com';
  const src = `https://${host}/embed/${encodeURIComponent(id)}?${query}`;
  const allow = `accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share${flag(args, 'allowFullScreen') === false ? '' : '; fullscreen'}`;
  const className = get(args, 'class', 1);
  const div = className ? ` class="${escapeHtml(className)}"` : ` style="${wrapperStyle}"`;
  const frame = [
    `allow="${allow}"`,
    `loading="${escapeHtml(get(args, 'loading') ?? 'eager')}"`,
    'referrerpolicy="strict-origin-when-cross-origin"',
    `src="${escapeHtml(src)}"`,
    ...(className ? [] : [`style="${frameStyle}"`]),
    `title="${escapeHtml(get(args, 'title') ?? 'YouTube video')}"`,
  ].join(' ');
  return `<div${div}><iframe ${frame}></iframe></div>`;
}

/** vimeo.html; null without an id. */
export function vimeoHtml(args: ShortcodeArgs, options: EmbedOptions): string | null {
  const id = get(args, 'id', 0);
  if (!id) return null;
  const className = get(args, 'class', 1);
  const title = get(args, 'title', 2);
  const loading = get(args, 'loading', 3);
  const src = `https://player.vimeo.com/video/${encodeURIComponent(id)}?dnt=${options.vimeoDnt ? 1 : 0}`;
  const frame = [
    `src="${escapeHtml(src)}"`,
    ...(className ? [] : [`style="${frameStyle}"`]),
    ...(flag(args, 'allowFullScreen') === false ? [] : ['allow="fullscreen"']),
    ...(loading ? [`loading="${escapeHtml(loading)}"`] : []),
    ...(title ? [`title="${escapeHtml(title)}"`] : []),
  ].join(' ');
  const div = className ? ` class="${escapeHtml(className)}"` : ` style="${wrapperStyle}"`;
  return `<div${div}><iframe ${frame}></iframe></div>`;
}

/** gist.html as it was until Hugo 0.156 removed it; null without a user and an id. */
export function gistHtml(args: ShortcodeArgs): string | null {
  const [user, id, file] = args.positional;
  if (!user || !id) return null;
  const query = file ? `?file=${encodeURIComponent(file)}` : '';
  return `<script src="https://gist.github.com/${escapeHtml(user)}/${escapeHtml(id)}.js${escapeHtml(query)}"></script>`;
}

/** figure.html, with `src` already resolved to its URL; null without a src. */
export function figureHtml(args: ShortcodeArgs, src: string | undefined): string | null {
  if (!src) return null;
  const attribute = (name: string, value: string | undefined): string =>
    value === undefined ? '' : ` ${name}="${escapeHtml(value)}"`;
  const link = get(args, 'link');
  const caption = get(args, 'caption');
  const title = get(args, 'title');
  const attr = get(args, 'attr');
  const alt = get(args, 'alt') ?? (caption ? plainify(markdownify(caption)) : undefined);
  const img = `<img src="${escapeHtml(src)}"${attribute('alt', alt)}${attribute('width', get(args, 'width'))}${attribute('height', get(args, 'height'))}${attribute('loading', get(args, 'loading'))}>`;
  const linked = link
    ? `<a href="${escapeHtml(link)}"${attribute('target', get(args, 'target'))}${attribute('rel', get(args, 'rel'))}>${img}</a>`
    : img;
  let figcaption = '';
  if (title || caption || attr) {
    const heading = title ? `<h4>${escapeHtml(title)}</h4>` : '';
    const attrLink = get(args, 'attrlink');
    const credit = attr ? markdownify(attr) : '';
    const paragraph =
      caption || attr
        ? `<p>${caption ? markdownify(caption) : ''}${attrLink ? `<a href="${escapeHtml(attrLink)}">${credit}</a>` : credit}</p>`
        : '';
    figcaption = `<figcaption>${heading}${paragraph}</figcaption>`;
  }
  return `<figure${attribute('class', get(args, 'class'))}>${linked}${figcaption}</figure>`;
}
