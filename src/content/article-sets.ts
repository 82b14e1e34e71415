// Article sets: which articles of a project have a property (a stored status, a tag, a word of
// the search text, a piece of it of up to three characters), as bitmaps of the articles'
// ordinals, so that the list counts any combination of its filters exactly by combining a few
// bitmaps instead of reading every matching article. Pure functions: the SQL is in
// article-set-queries.ts.
import type { OrdinalFlags } from '../db/dialect-sql.ts';
import type { ArticleInsertRow, StoredArticleStatus } from '../db/schema.ts';

/**
 * A set is stored in chunks of 4,096 ordinals, one row each: a change of one article rewrites one
 * small row per set it is in (at most 512 bytes), never a whole bitmap of the project.
 */
export const chunkBits = 12;
export const chunkSize = 1 << chunkBits;
const chunkWords = chunkSize / 32;
/** The length of a chunk stored as a bitmap (a list is always shorter). */
export const bitmapBytes = chunkSize / 8;
/** A chunk of fewer members than this is stored as their list (2 bytes each), else as a bitmap. */
const listLimit = bitmapBytes / 2;

/**
 * The search text is split on whitespace as the terms of `?search=` are: a term holds no
 * whitespace, so it occurs in the text exactly when it occurs in one of these tokens. Tokens
 * longer than `tokenWindow` UTF-16 units are kept as overlapping windows of that length, each
 * starting `windowStep` units after the previous: every term of at most `windowStep` units that
 * occurs in the token lies whole in one window. Longer terms are searched in the texts themselves.
 */
export const tokenWindow = 256;
export const windowStep = 128;
/**
 * Terms of up to three code points are counted from the set of that piece of text (`the`, `and`,
 * `é`): such a term is a piece of many tokens (`the` of `them`, `other`, `weather` …), whose sets
 * would be too many to combine.
 */
export const pieceLength = 3;

export const statusSetKey = (status: StoredArticleStatus) => `s:${status}`;
export const tagSetKey = (tagId: string) => `g:${tagId}`;
export const tokenSetKey = (token: string) => `t:${token}`;
export const pieceSetKey = (piece: string) => `c:${piece}`;
/** The set of a fragment held by very many words (`tion`), stored whole once a search read it so. */
export const fragmentSetKey = (fragment: string) => `f:${fragment}`;
export const tokenOfSetKey = (key: string): string | null => (key.startsWith('t:') ? key.slice(2) : null);

/** How a search term (already lower-cased with searchKey) is counted. */
export type TermSource =
  | { kind: 'piece'; key: string }
  | { kind: 'tokens'; term: string }
  /** Too long for the token windows: matched in the texts. */
  | { kind: 'text' };

export function termSource(term: string): TermSource {
  let codePoints = 0;
  for (const _ of term) if (++codePoints > pieceLength) break;
  if (codePoints <= pieceLength) return { kind: 'piece', key: pieceSetKey(term) };
  return term.length <= windowStep ? { kind: 'tokens', term } : { kind: 'text' };
}

/**
 * The characters `\s` matches (ECMAScript's WhiteSpace and LineTerminator, Unicode's Zs), by code:
 * the split of the terms, without a regular expression per character.
 */
export function isWhitespaceCode(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * One pass over a search text: each token (or window of a long one) and each piece of one to
 * three code points of a token, possibly more than once.
 */
function walkSearchText(text: string, onToken: (token: string) => void, onPiece: (piece: string) => void) {
  let start = -1;
  // The starts of the one and two code points before this one in the token, or -1.
  let previous = -1;
  let beforePrevious = -1;
  for (let i = 0; i <= text.length;) {
    const code = i < text.length ? text.charCodeAt(i) : 0x20;
    const width = isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
    if (isWhitespaceCode(code)) {
      if (start >= 0) windowsOf(text.slice(start, i), onToken);
      start = previous = beforePrevious = -1;
    } else {
      if (start < 0) start = i;
      const end = i + width;
      onPiece(text.slice(i, end));
      if (previous >= 0) onPiece(text.slice(previous, end));
      if (beforePrevious >= 0) onPiece(text.slice(beforePrevious, end));
      beforePrevious = previous;
      previous = i;
    }
    i += width;
  }
}

function windowsOf(token: string, onToken: (token: string) => void): void {
  if (token.length <= tokenWindow) {
    onToken(token);
    return;
  }
  for (let start = 0; ; start += windowStep) {
    // Never between the two halves of a surrogate pair: a window only grows by one unit.
    const from = isLowSurrogate(token.charCodeAt(start)) ? start - 1 : start;
    let end = Math.min(start + tokenWindow, token.length);
    if (end < token.length && isLowSurrogate(token.charCodeAt(end))) end++;
    onToken(token.slice(from, end));
    if (end >= token.length) return;
  }
}

/**
 * The distinct tokens (or windows of long ones) of a search text, and every piece of one to three
 * code points of its tokens, in one pass.
 */
export function tokensAndPieces(searchText: string): { tokens: Set<string>; pieces: Set<string> } {
  const tokens = new Set<string>();
  const pieces = new Set<string>();
  walkSearchText(
    searchText,
    (token) => tokens.add(token),
    (piece) => pieces.add(piece),
  );
  return { tokens, pieces };
}

export interface ArticleMembership {
  status: StoredArticleStatus;
  tagIds: Iterable<string>;
  searchText: string;
}

/**
 * The keys of every set an article belongs to, of the project's stored fragments among them: a
 * fragment holds no whitespace, so it is in the text exactly when it is in one of its tokens.
 */
export function articleSetKeys(
  { status, tagIds, searchText }: ArticleMembership,
  fragments: readonly string[] = [],
): Set<string> {
  const keys = new Set<string>([statusSetKey(status)]);
  for (const fragment of fragments) if (searchText.includes(fragment)) keys.add(fragmentSetKey(fragment));
  for (const id of tagIds) keys.add(tagSetKey(id));
  // A piece recurs many times in a text: each distinct one is made a key once.
  const { tokens, pieces } = tokensAndPieces(searchText);
  for (const token of tokens) keys.add(tokenSetKey(token));
  for (const piece of pieces) keys.add(pieceSetKey(piece));
  return keys;
}

/**
 * Whether a change of an article (its row and set keys before and after) can move it in or along a
 * list sorted by createdAt or title, or in or out of a status or tag filter: what the marks of deep
 * pages (page-marks.ts) are kept across otherwise (projects.order_version).
 */
export function movesInLists(
  before: Pick<ArticleInsertRow, 'status' | 'published_at' | 'created_at' | 'title_key'>,
  after: Pick<ArticleInsertRow, 'status' | 'published_at' | 'created_at' | 'title_key'>,
  keysBefore: ReadonlySet<string>,
  keysAfter: ReadonlySet<string>,
): boolean {
  const tags = (keys: ReadonlySet<string>) => [...keys].filter((key) => key.startsWith(tagSetKey('')));
  const tagsBefore = tags(keysBefore);
  const tagsAfter = tags(keysAfter);
  return (
    before.status !== after.status ||
    before.published_at !== after.published_at ||
    before.created_at !== after.created_at ||
    before.title_key !== after.title_key ||
    tagsBefore.length !== tagsAfter.length ||
    tagsAfter.some((key) => !keysBefore.has(key))
  );
}

/** A set of ordinals, by chunk: 128 words of 32 bits each. Chunks with no member may be absent. */
export class OrdinalSet {
  readonly chunks: Map<number, Uint32Array>;

  constructor(chunks = new Map<number, Uint32Array>()) {
    this.chunks = chunks;
  }

  static of(ordinals: Iterable<number>): OrdinalSet {
    const set = new OrdinalSet();
    for (const ordinal of ordinals) set.add(ordinal);
    return set;
  }

  #words(chunk: number): Uint32Array {
    let words = this.chunks.get(chunk);
    if (words === undefined) this.chunks.set(chunk, (words = new Uint32Array(chunkWords)));
    return words;
  }

  add(ordinal: number): void {
    const low = ordinal & (chunkSize - 1);
    this.#words(ordinal >>> chunkBits)[low >>> 5] |= 1 << (low & 31);
  }

  /** Adds the members of one stored chunk. */
  addStored(chunk: number, members: Uint8Array): void {
    orStored(this.#words(chunk), members);
  }

  /**
   * Adds the members of several stored chunks of one chunk number, joined end to end: all
   * bitmaps, or all lists (lists joined may be 512 bytes long, so the caller says which).
   */
  addJoined(chunk: number, joined: Uint8Array, bitmaps: boolean): void {
    const words = this.#words(chunk);
    if (!bitmaps) {
      orList(words, joined);
      return;
    }
    for (let start = 0; start + bitmapBytes <= joined.length; start += bitmapBytes)
      orStored(words, joined.subarray(start, start + bitmapBytes));
  }

  and(other: OrdinalSet): OrdinalSet {
    const chunks = new Map<number, Uint32Array>();
    for (const [chunk, words] of this.chunks) {
      const others = other.chunks.get(chunk);
      if (others === undefined) continue;
      const result = new Uint32Array(chunkWords);
      for (let i = 0; i < chunkWords; i++) result[i] = words[i] & others[i];
      chunks.set(chunk, result);
    }
    return new OrdinalSet(chunks);
  }

  or(other: OrdinalSet): OrdinalSet {
    const chunks = new Map<number, Uint32Array>();
    for (const [chunk, words] of this.chunks) chunks.set(chunk, words.slice());
    for (const [chunk, words] of other.chunks) {
      const result = chunks.get(chunk);
      if (result === undefined) chunks.set(chunk, words.slice());
      else for (let i = 0; i < chunkWords; i++) result[i] |= words[i];
    }
    return new OrdinalSet(chunks);
  }

  minus(other: OrdinalSet): OrdinalSet {
    const chunks = new Map<number, Uint32Array>();
    for (const [chunk, words] of this.chunks) {
      const others = other.chunks.get(chunk);
      const result = words.slice();
      if (others !== undefined) for (let i = 0; i < chunkWords; i++) result[i] &= ~others[i];
      chunks.set(chunk, result);
    }
    return new OrdinalSet(chunks);
  }

  get size(): number {
    let size = 0;
    for (const words of this.chunks.values()) size += popcount(words);
    return size;
  }

  /**
   * The members as flags (dialect-sql.ts ordinalFlagged): each chunk's bits at its place, bit n of
   * the set at byte n >> 3, bit n & 7; `end` past the last chunk.
   */
  flags(): OrdinalFlags {
    let end = 0;
    for (const chunk of this.chunks.keys()) end = Math.max(end, (chunk + 1) << chunkBits);
    const bits = new Uint8Array(end >> 3);
    for (const [chunk, words] of this.chunks) {
      let at = (chunk << chunkBits) >> 3;
      for (let i = 0; i < chunkWords; i++, at += 4) {
        const word = words[i];
        if (word === 0) continue;
        bits[at] = word & 0xff;
        bits[at + 1] = (word >>> 8) & 0xff;
        bits[at + 2] = (word >>> 16) & 0xff;
        bits[at + 3] = word >>> 24;
      }
    }
    return { bits, end };
  }

  /** The members in ascending order. */
  ordinals(): number[] {
    const ordinals: number[] = [];
    for (const chunk of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const words = this.chunks.get(chunk)!;
      for (let i = 0; i < chunkWords; i++) {
        let word = words[i];
        while (word !== 0) {
          const bit = 31 - Math.clz32(word & -word);
          ordinals.push((chunk << chunkBits) | (i << 5) | bit);
          word &= word - 1;
        }
      }
    }
    return ordinals;
  }
}

function popcount(words: Uint32Array): number {
  let count = 0;
  for (let i = 0; i < words.length; i++) {
    let v = words[i];
    if (v === 0) continue;
    v = v - ((v >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    count += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return count;
}

/** ORs a stored chunk (a list of 16-bit little-endian low ordinals, or a 512-byte bitmap) into words. */
function orStored(words: Uint32Array, members: Uint8Array): void {
  if (members.length === bitmapBytes) {
    for (let i = 0, b = 0; i < chunkWords; i++, b += 4) {
      words[i] |= members[b] | (members[b + 1] << 8) | (members[b + 2] << 16) | (members[b + 3] << 24);
    }
    return;
  }
  orList(words, members);
}

/** ORs a list of 16-bit little-endian low ordinals into words. */
function orList(words: Uint32Array, members: Uint8Array): void {
  for (let b = 0; b + 1 < members.length; b += 2) {
    const low = members[b] | (members[b + 1] << 8);
    words[low >>> 5] |= 1 << (low & 31);
  }
}

/** The stored form of a chunk's words, or null when it has no member. */
export function encodeChunk(words: Uint32Array): Uint8Array | null {
  const size = popcount(words);
  if (size === 0) return null;
  if (size >= listLimit) {
    const bytes = new Uint8Array(bitmapBytes);
    for (let i = 0, b = 0; i < chunkWords; i++, b += 4) {
      const word = words[i];
      bytes[b] = word & 0xff;
      bytes[b + 1] = (word >>> 8) & 0xff;
      bytes[b + 2] = (word >>> 16) & 0xff;
      bytes[b + 3] = word >>> 24;
    }
    return bytes;
  }
  const bytes = new Uint8Array(size * 2);
  let b = 0;
  for (let i = 0; i < chunkWords; i++) {
    let word = words[i];
    while (word !== 0) {
      const low = (i << 5) | (31 - Math.clz32(word & -word));
      bytes[b++] = low & 0xff;
      bytes[b++] = low >>> 8;
      word &= word - 1;
    }
  }
  return bytes;
}

/** The words of one stored chunk. */
export function decodeChunk(members: Uint8Array): Uint32Array {
  const words = new Uint32Array(chunkWords);
  orStored(words, members);
  return words;
}

/**
 * Changes to the sets of a project, gathered while articles are written: per chunk and set, the
 * ordinals (less the chunk's first) that join it, and as `-1 - low` those that leave it.
 */
export class SetChanges {
  readonly #chunks = new Map<number, Map<string, number[]>>();
  #count = 0;

  /** The article's sets before (null: it is new) and after (null: it is deleted) the write. */
  article(ordinal: number, before: Set<string> | null, after: Set<string> | null): void {
    const chunk = ordinal >>> chunkBits;
    const low = ordinal & (chunkSize - 1);
    let sets = this.#chunks.get(chunk);
    if (sets === undefined) this.#chunks.set(chunk, (sets = new Map()));
    const change = (key: string, value: number) => {
      const list = sets.get(key);
      if (list === undefined) sets.set(key, [value]);
      else list.push(value);
      this.#count++;
    };
    for (const key of after ?? []) if (!before?.has(key)) change(key, low);
    for (const key of before ?? []) if (!after?.has(key)) change(key, -1 - low);
  }

  /** Memberships changed so far: the writer applies them in batches to bound its memory. */
  get size(): number {
    return this.#count;
  }

  /** Per chunk, per set key, the changes as above. */
  chunks(): ReadonlyMap<number, ReadonlyMap<string, number[]>> {
    return this.#chunks;
  }

  clear(): void {
    this.#chunks.clear();
    this.#count = 0;
  }

  /** Moves the changes of the chunks before the one of `ordinal` into a SetChanges of their own. */
  takeChunksBefore(ordinal: number): SetChanges {
    const taken = new SetChanges();
    const before = ordinal >>> chunkBits;
    for (const [chunk, sets] of this.#chunks) {
      if (chunk >= before) continue;
      taken.#chunks.set(chunk, sets);
      let count = 0;
      for (const list of sets.values()) count += list.length;
      taken.#count += count;
      this.#count -= count;
      this.#chunks.delete(chunk);
    }
    return taken;
  }
}

/** Applies a chunk's changes (as SetChanges holds them) to its words, in place. */
export function applyToChunk(words: Uint32Array, changes: number[]): void {
  for (const change of changes) {
    if (change >= 0) words[change >>> 5] |= 1 << (change & 31);
    else {
      const low = -1 - change;
      words[low >>> 5] &= ~(1 << (low & 31));
    }
  }
}

/** An empty chunk's words. */
export function emptyChunk(): Uint32Array {
  return new Uint32Array(chunkWords);
}
