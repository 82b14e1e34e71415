// Which stored URLs may become links in SEO output (canonical, Open Graph and JSON-LD images):
// http(s) URLs and references without a scheme (site paths), never `javascript:`, `data:` or any
// other scheme that a page rendering the metadata would run or embed.

/** An absolute http(s) URL, or a reference with no scheme (`/img/a.png`, `a.png`, `//cdn/a.png`). */
export function isWebLink(value: string): boolean {
  const trimmed = value.trim();
  const absolute = URL.parse(trimmed);
  if (absolute !== null) return absolute.protocol === 'http:' || absolute.protocol === 'https:';
  return URL.parse(trimmed, 'https://site.invalid/') !== null;
}
