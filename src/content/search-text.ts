// The text that `?search=` looks in: title, excerpt and the plain text of the content (no Markdown
// syntax, link URLs or image paths), lower-cased once at import so that both databases compare
// bytes instead of folding case on every search.

// Greek has two lower-case sigmas, σ and the word-final ς, which toLowerCase chooses by context:
// both sides are written with σ so that every form of the letter matches the others.
const FINAL_SIGMA = /ς/gu;

/**
 * A search term or stored text as compared: lower-cased, every sigma written σ, and a lone half of
 * a surrogate pair written U+FFFD, as both databases store it (so that the keys of the article
 * sets, built from this text, are the strings stored).
 */
export function searchKey(text: string): string {
  return text.toLowerCase().replace(FINAL_SIGMA, 'σ').toWellFormed();
}

/**
 * The stored search text of an article. Fields are joined by a newline: a term never holds
 * whitespace, so it never matches across two fields. PostgreSQL cannot store a NUL: none is kept.
 */
export function searchTextOf(title: string, excerpt: string | null, plainText: string): string {
  return searchKey([title, excerpt ?? '', plainText].join('\n')).replaceAll('\u0000', '');
}
