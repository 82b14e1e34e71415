// The id of a feed item in Atom and JSON Feed: an IRI, since Atom allows nothing else for an entry's
// id (JSON Feed readers compare it as a string). It is the RSS guid written as one, so that the three
// feeds of an article share one identity and a reader moving from one to another sees no new item.

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An absolute IRI: a scheme, a colon, then only characters an IRI may hold (no spaces,
 * controls or `<>"{}|\^\``; no lone surrogate or U+FFFE/U+FFFF either, which XML cannot carry, so
 * that the Atom and JSON ids stay equal) with `%` only as the start of an escape. A URL guid (an old feed's
 * permalink) is one and is kept exactly, as is a `urn:` or `tag:` guid.
 */
const absoluteIri =
  /^[A-Za-z][A-Za-z0-9+.-]*:(?:[^\s<>"{}|\\^`\u0000-\u001F\u007F-\u009F%\uD800-\uDFFF\uFFFE\uFFFF]|%[0-9A-Fa-f]{2})+$/u;

/** What a tag URI's specific part may hold as it is (RFC 4151: pchar, `/` and `?`). */
const tagCharacter = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]$/;

const utf8 = new TextEncoder();

/**
 * The item id for an RSS guid: the guid itself when it is an absolute IRI, `urn:uuid:…` (lower
 * case, as RFC 9562 writes it) for a UUID such as a Folio id, else `tag:HOST,2026:…` with the
 * guid percent-encoded where a tag URI needs it (a Ghost id, a slug). The same guid always gives
 * the same id; `host` is the base URL's host, the authority that mints the tag.
 */
export function feedItemId(guid: string, host: string): string {
  const value = guid.trim();
  if (uuid.test(value)) return `urn:uuid:${value.toLowerCase()}`;
  if (absoluteIri.test(value)) return value;
  return `tag:${host},2026:${tagSpecific(value)}`;
}

function tagSpecific(value: string): string {
  let specific = '';
  for (const character of value) {
    if (tagCharacter.test(character)) {
      specific += character;
      continue;
    }
    // UTF-8 bytes, as URIs encode them; a lone surrogate becomes U+FFFD's bytes instead of throwing.
    for (const byte of utf8.encode(character))
      specific += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return specific;
}
