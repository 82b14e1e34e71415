// Splits a JSON document, fed in chunks of bytes, into the elements of its root object's
// `articles` list, one at a time, and the rest (the "skeleton": the root, the tags, each article
// replaced by `0` and the newlines it held, so that lines stay where they were). Both are then read
// by JSON.parse, which checks the syntax: a file is valid JSON exactly when its skeleton and each
// of its articles are. The splitter itself only follows strings and brackets, and counts lines.

/** One element of `articles`, as its text: `null` when its bytes are not UTF-8. */
export interface JsonElement {
  index: number;
  text: string | null;
  /** The line the element's text (from the byte after the `[` or `,` before it) starts on. */
  firstLine: number;
  /** The line of its value's first character. */
  valueLine: number;
  /** The line of its own `"slug"` key, when it is an object with one. */
  slugLine: number | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Keys compared are short: a longer string is never one of them. */
const KEY_MAX = 16;

const isSpace = (byte: number) => byte === 0x20 || byte === NEWLINE || byte === 0x0d || byte === 0x09;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class JsonArticleSplitter {
  readonly #onElement: ((element: JsonElement) => void) | null;
  #line = 1;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #rootIsObject = false;
  #started = false;
  // The last short string at depth 1 (root keys) or in an article object (its keys), as text.
  #key: number[] | null = null;
  #keyLine = 0;
  #lastString = '';
  #lastStringLine = 0;
  // A value follows the root key `articles`.
  #afterArticlesKey = false;
  #articlesSplit = false;
  // Inside the `articles` list: collecting an element (from the byte after `[` or `,`).
  #inArticles = false;
  #parts: Uint8Array[] = [];
  #elementFirstLine = 0;
  #elementValueLine = 0;
  #elementSlugLine: number | null = null;
  #elementNewlines = 0;
  #elementBlank = true;
  #count = 0;
  #skeleton: Uint8Array[] = [];
  #nulLine: number | null = null;
  #bom = 0;

  /** Without `onElement`, elements are only counted. */
  constructor(onElement: ((element: JsonElement) => void) | null) {
    this.#onElement = onElement;
  }

  /** The number of elements of `articles` split so far. */
  get count(): number {
    return this.#count;
  }

  /** The line of the first NUL byte, which neither database can store (JSON refuses it anyway). */
  get nulLine(): number | null {
    return this.#nulLine;
  }

  push(chunk: Uint8Array): void {
    let from = 0;
    // A byte order mark is not part of the JSON text.
    while (this.#bom < 3 && from < chunk.length && !this.#started) {
      if (chunk[from] !== [0xef, 0xbb, 0xbf][this.#bom]) {
        this.#bom = 3;
        break;
      }
      this.#bom++;
      from++;
    }
    // Bytes not yet handed to the skeleton or the element: [mark, i).
    let mark = from;
    for (let i = from; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === NEWLINE) {
        this.#line++;
        if (this.#inArticles) this.#elementNewlines++;
        continue;
      }
      if (byte === 0 && this.#nulLine === null) this.#nulLine = this.#line;
      this.#started = true;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === BACKSLASH) this.#escaped = true;
        else if (byte === QUOTE) this.#endString();
        else if (this.#key !== null) {
          if (this.#key.length < KEY_MAX) this.#key.push(byte);
          else this.#key = null;
        }
        continue;
      }
      if (!isSpace(byte)) mark = this.#token(chunk, i, mark);
    }
    // Copied: the element goes on in the next chunk, and a reader may reuse this one's memory.
    if (this.#inArticles) {
      if (mark < chunk.length && this.#onElement !== null)
        this.#parts.push(Uint8Array.from(chunk.subarray(mark)));
    } else if (mark < chunk.length) this.#skeletonPush(chunk.subarray(mark));
  }

  /** The skeleton's text, once every chunk was pushed; `null` when its bytes are not UTF-8. */
  end(): string | null {
    // An unfinished element (the text ends inside the list) stays in the skeleton, where it fails.
    if (this.#inArticles) for (const part of this.#parts) this.#skeletonPush(part);
    this.#parts = [];
    try {
      return utf8.decode(Buffer.concat(this.#skeleton));
    } catch {
      return null;
    }
  }

  /** A byte outside strings and whitespace, at `i`; returns the new start of the bytes not yet handed on. */
  #token(chunk: Uint8Array, i: number, mark: number): number {
    const byte = chunk[i];
    const articlesLevel = this.#inArticles && this.#depth === 2;
    if (articlesLevel && (byte === COMMA || byte === CLOSE_BRACKET)) {
      this.#endElement(chunk.subarray(mark, i));
      mark = i;
      if (byte === CLOSE_BRACKET) {
        this.#inArticles = false;
        this.#depth--;
      } else {
        this.#skeletonPush(chunk.subarray(i, i + 1));
        mark = i + 1;
        this.#startElement();
      }
      return mark;
    }
    if (this.#inArticles && this.#elementBlank) {
      this.#elementBlank = false;
      this.#elementValueLine = this.#line;
    }
    if (byte === QUOTE) {
      this.#inString = true;
      this.#afterArticlesKey = false;
      const keyDepth = this.#inArticles ? 3 : 1;
      this.#key = this.#depth === keyDepth && (keyDepth === 1 ? this.#rootIsObject : true) ? [] : null;
      this.#keyLine = this.#line;
      return mark;
    }
    if (byte === COLON) {
      if (this.#depth === 1 && this.#rootIsObject && !this.#inArticles) {
        this.#afterArticlesKey = this.#lastString === 'articles' && !this.#articlesSplit;
        return mark;
      }
      if (
        this.#inArticles &&
        this.#depth === 3 &&
        this.#lastString === 'slug' &&
        this.#elementSlugLine === null
      )
        this.#elementSlugLine = this.#lastStringLine;
      return mark;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (this.#depth === 0) this.#rootIsObject = byte === OPEN_BRACE;
      const opensArticles = this.#afterArticlesKey && this.#depth === 1 && byte === OPEN_BRACKET;
      this.#afterArticlesKey = false;
      this.#depth++;
      if (opensArticles) {
        this.#articlesSplit = true;
        this.#skeletonPush(chunk.subarray(mark, i + 1));
        mark = i + 1;
        this.#inArticles = true;
        this.#startElement();
      }
      return mark;
    }
    if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.#depth--;
    this.#afterArticlesKey = false;
    return mark;
  }

  #endString(): void {
    this.#inString = false;
    if (this.#key !== null) {
      this.#lastString = String.fromCharCode(...this.#key);
      this.#lastStringLine = this.#keyLine;
      this.#key = null;
    } else this.#lastString = '';
  }

  #skeletonPush(bytes: Uint8Array): void {
    // Only counting: nothing is kept.
    if (bytes.length > 0 && this.#onElement !== null) this.#skeleton.push(Uint8Array.from(bytes));
  }

  #startElement(): void {
    this.#parts = [];
    this.#elementFirstLine = this.#line;
    this.#elementValueLine = this.#line;
    this.#elementSlugLine = null;
    this.#elementNewlines = 0;
    this.#elementBlank = true;
  }

  /** The element ends before `tail` (the rest of the chunk up to its `,` or `]`). */
  #endElement(tail: Uint8Array): void {
    if (tail.length > 0 && this.#onElement !== null) this.#parts.push(tail);
    if (this.#elementBlank) {
      // `[]`, or an empty place (`[1,,2]`): left to the skeleton, where JSON.parse judges it.
      for (const part of this.#parts) this.#skeletonPush(part);
      this.#parts = [];
      return;
    }
    this.#skeletonPush(Buffer.from(`0${'\n'.repeat(this.#elementNewlines)}`));
    const index = this.#count++;
    if (this.#onElement !== null) {
      let text: string | null;
      try {
        text = utf8.decode(this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts));
      } catch {
        text = null;
      }
      this.#onElement({
        index,
        text,
        firstLine: this.#elementFirstLine,
        valueLine: this.#elementValueLine,
        slugLine: this.#elementSlugLine,
      });
    }
    this.#parts = [];
  }
}
