// The body of a site's article, finished once every article's path is known: the excerpt divider
// taken out, relative images made absolute against the article's own URL (so that page-bundle
// images work wherever the content is shown), and a missing one reported with its line.
import { access } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { ImportProblem } from '../records.ts';

const FENCE_RE = /^\s*(```|~~~)/;
// ![alt](target "title") and <img src="target">: the target is group 2.
const MARKDOWN_IMAGE_RE = /(!\[[^\]]*\]\()\s*<?([^)\s>]+)>?((?:\s+["'(][^)]*)?\))/g;
const HTML_IMAGE_RE = /(<img\b[^>]*?\bsrc=["'])([^"']+)(["'])/gi;

/** The file path a link target names: without query or fragment, percent-escapes decoded (kept when malformed). */
function decodedPath(target: string): string {
  const path = target.split(/[?#]/)[0];
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** Whether a link target is relative to the page (no scheme, no leading `/`, not a fragment). */
function isPageRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('/') && !target.startsWith('#');
}

/** `boats.jpg` against `https://site/2024/05/walk/` → `https://site/2024/05/walk/boats.jpg` (a path without a site URL). */
export function againstArticle(target: string, base: string): string {
  const absolute = new URL(target, new URL(base, 'http://site.invalid')).href;
  return absolute.replace(/^http:\/\/site\.invalid/, '');
}

/** The divider removed (its text only, so that the lines of the body keep their numbers). */
export function withoutSeparator(body: string, separator: string | null): string {
  if (separator === null) return body;
  const at = body.indexOf(separator);
  return at < 0 ? body : body.slice(0, at) + body.slice(at + separator.length);
}

/**
 * Finds an image target's line in the body as written, each one after the previous one found (an
 * expansion that dropped or added lines moves the targets, not their order); the line in the
 * expanded body when the target is not found as written (a shortcode built it).
 */
function writtenLines(
  written: string | undefined,
  bodyLine: number,
): (target: string, fallback: number) => number {
  if (written === undefined) return (_target, fallback) => fallback;
  const lines = written.split('\n');
  let from = 0;
  return (target, fallback) => {
    const at = lines.findIndex((line, i) => i >= from && line.includes(target));
    if (at < 0) return fallback;
    from = at;
    return bodyLine + at;
  };
}

/**
 * Rewrites page-relative image targets outside code blocks; each one whose file is not beside the
 * source file is reported as `missing-image` at its line. With `processed` (the generator publishes
 * such images under names the source does not hold: Astro's assets, Eleventy's image transform),
 * each one is reported as `asset-not-public` with that reason instead.
 */
export async function resolveImages(
  body: string,
  context: {
    file: string;
    bodyLine: number;
    base: string | null;
    siteRoot: string;
    /** The body as written, when `body` is its expansion (whose lines may have moved): lines are found in it. */
    written?: string;
    processed?: string | null;
  },
  warnings: ImportProblem[],
): Promise<string> {
  if (context.base === null) return body;
  const lines = body.split('\n');
  const lineOf = writtenLines(context.written, context.bodyLine);
  let fence: string | null = null;
  const missing: { target: string; line: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const opening = FENCE_RE.exec(lines[i]);
    if (opening) {
      if (fence === null) fence = opening[1];
      else if (opening[1] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const rewrite = (whole: string, before: string, target: string, after: string) => {
      if (!isPageRelative(target)) return whole;
      missing.push({ target, line: lineOf(target, context.bodyLine + i) });
      return `${before}${againstArticle(target, context.base as string)}${after}`;
    };
    lines[i] = lines[i].replace(MARKDOWN_IMAGE_RE, rewrite).replace(HTML_IMAGE_RE, rewrite);
  }
  const folder = posix.dirname(context.file);
  if (context.processed) {
    for (const { target, line } of missing) {
      warnings.push({
        file: context.file,
        line,
        kind: 'asset-not-public',
        message: `image ${JSON.stringify(target)}: ${context.processed}; its link points at ${againstArticle(target, context.base)}, where the generator never published it`,
      });
    }
    return lines.join('\n');
  }
  for (const { target, line } of missing) {
    const path = join(context.siteRoot, ...folder.split('/'), ...decodedPath(target).split('/'));
    const exists = await access(path).then(
      () => true,
      () => false,
    );
    if (!exists) {
      warnings.push({
        file: context.file,
        line,
        kind: 'missing-image',
        message: `image ${JSON.stringify(target)} is not beside the post: its link points at ${againstArticle(target, context.base)}, which the import cannot check`,
      });
    }
  }
  return lines.join('\n');
}

/** A file's name for a cross-reference by name: its stem, or a bundle's folder for index.md. */
function stemOf(file: string): string {
  const stem = posix.basename(file).replace(/\.[^.]+$/, '');
  return stem === 'index' || stem === '_index' ? posix.basename(posix.dirname(file)) : stem;
}

/**
 * Resolves a template cross-reference (Hugo `ref`/`relref`, Liquid `link`/`post_url`) to the
 * target's URL: the profile's candidate files first, else the one file whose name is the target's.
 * `ref` gives the absolute URL (Hugo's .Permalink); the others the path, as the generators write them.
 */
export function refResolver(
  paths: ReadonlyMap<string, string | null>,
  candidates: (target: string, from: string) => string[],
  siteUrl: string | null,
  from: string,
): (target: string, kind: 'ref' | 'relref' | 'link' | 'post_url') => string | null {
  return (target, kind) => {
    const fragment = /#.*$/.exec(target)?.[0] ?? '';
    const bare = target.replace(/#.*$/, '');
    let file = candidates(bare, from).find((candidate) => paths.has(candidate));
    if (file === undefined) {
      const wanted = stemOf(bare.replace(/\/+$/, ''));
      const named = [...paths.keys()].filter((known) => stemOf(known) === wanted);
      if (named.length === 1) file = named[0];
    }
    const path = file === undefined ? null : (paths.get(file) ?? null);
    if (path === null) return null;
    return `${kind === 'ref' && siteUrl !== null ? siteUrl : ''}${path}${fragment}`;
  };
}
