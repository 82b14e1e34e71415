// Escaping of text for XML 1.0 documents. Characters XML 1.0 cannot carry at all (C0 controls but
// tab, newline and carriage return; U+FFFE and U+FFFF; lone surrogates) are dropped, so that any
// string, whatever an author stored, still makes a document that parses.

// Without the `u` flag a regex sees UTF-16 code units, so a lone surrogate is a surrogate not
// paired with its neighbour.
const LONE_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const FORBIDDEN = '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]';

const FORBIDDEN_CHARACTERS = new RegExp(`${FORBIDDEN}|${LONE_SURROGATE}`, 'g');
// A parser turns a raw carriage return into a newline, and in an attribute value also a tab or a
// newline into a space: those are written as character references so that they come back as sent.
const TEXT_SPECIALS = new RegExp(`[&<>"'\\r]|${FORBIDDEN}|${LONE_SURROGATE}`, 'g');
const ATTRIBUTE_SPECIALS = new RegExp(`[&<>"'\\r\\n\\t]|${FORBIDDEN}|${LONE_SURROGATE}`, 'g');

const replacements: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#xD;',
  '\n': '&#xA;',
  '\t': '&#x9;',
};

const replace = (match: string): string => replacements[match] ?? '';

/** `text` as the content of an XML element. */
export function xmlText(text: string): string {
  return text.replace(TEXT_SPECIALS, replace);
}

/** `text` as an XML attribute value (between double or single quotes). */
export function xmlAttribute(text: string): string {
  return text.replace(ATTRIBUTE_SPECIALS, replace);
}

/** `text` without the characters XML 1.0 cannot carry: what a parser reads back from `xmlText`. */
export function xmlCharacters(text: string): string {
  return text.replace(FORBIDDEN_CHARACTERS, '');
}

export const xmlDeclaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
