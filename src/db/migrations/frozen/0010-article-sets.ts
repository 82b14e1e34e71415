// What migration 0010 builds for the articles already stored: each project's article sets (bitmaps
// of ordinals per stored status, tag, token of the search text and piece of a token) and its
// dictionary of tokens, copied from content/article-sets.ts and article-set-queries.ts as they were
// when copied. Frozen: a later change to how content/ keeps its sets must not change what an old
// migration does (a later migration changes the stored sets if it must).
import type { Kysely } from 'kysely';

// The tables as they were at 0010, not as schema.ts declares them later.
type Executor = Kysely<any>;

const chunkBits = 12;
const chunkSize = 1 << chunkBits;
const chunkWords = chunkSize / 32;
const bitmapBytes = chunkSize / 8;
/** A chunk of fewer members than this is stored as their list (2 bytes each), else as a bitmap. */
const listLimit = bitmapBytes / 2;
/** Tokens longer than this are kept as overlapping windows of it, `windowStep` apart. */
const tokenWindow = 256;
const windowStep = 128;
/** Sets written per statement: well under both databases' limits on parameters. */
const keysPerStatement = 500;

/**
 * The characters `\s` matches (ECMAScript's WhiteSpace and LineTerminator, Unicode's Zs), by code:
 * the split of the terms, without a regular expression per character.
 */
function isWhitespaceCode(code: number): boolean {
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
function tokensAndPieces(searchText: string): { tokens: Set<string>; pieces: Set<string> } {
  const tokens = new Set<string>();
  const pieces = new Set<string>();
  walkSearchText(
    searchText,
    (token) => tokens.add(token),
    (piece) => pieces.add(piece),
  );
  return { tokens, pieces };
}

/** The keys of every set an article belongs to. */
function articleSetKeys({
  status,
  tagIds,
  searchText,
}: {
  status: string;
  tagIds: Iterable<string>;
  searchText: string;
}): Set<string> {
  const keys = new Set<string>([`s:${status}`]);
  for (const id of tagIds) keys.add(`g:${id}`);
  // A piece recurs many times in a text: each distinct one is made a key once.
  const { tokens, pieces } = tokensAndPieces(searchText);
  for (const token of tokens) keys.add(`t:${token}`);
  for (const piece of pieces) keys.add(`c:${piece}`);
  return keys;
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

/** The stored form of a chunk's words, or null when it has no member. */
function encodeChunk(words: Uint32Array): Uint8Array | null {
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

/** An empty chunk's words. */
function emptyChunk(): Uint32Array {
  return new Uint32Array(chunkWords);
}

function groupTags<K>(pairs: Array<[K, string]>): Map<K, string[]> {
  const groups = new Map<K, string[]>();
  for (const [owner, tagId] of pairs) {
    const group = groups.get(owner);
    if (group) group.push(tagId);
    else groups.set(owner, [tagId]);
  }
  return groups;
}

async function addTokens(executor: Executor, projectId: string, tokens: string[]): Promise<void> {
  for (let start = 0; start < tokens.length; start += keysPerStatement) {
    await executor
      .insertInto('search_tokens')
      .values(
        tokens.slice(start, start + keysPerStatement).map((token) => ({ project_id: projectId, token })),
      )
      .onConflict((conflict) => conflict.columns(['project_id', 'token']).doNothing())
      .execute();
  }
}

/**
 * Builds a project's sets and tokens again from its articles, a chunk of ordinals at a time (so
 * that memory stays bounded whatever the size of the project). Run inside a transaction.
 */
async function rebuildArticleSets(executor: Executor, projectId: string): Promise<void> {
  await executor.deleteFrom('article_sets').where('project_id', '=', projectId).execute();
  await executor.deleteFrom('search_tokens').where('project_id', '=', projectId).execute();
  const { last } = await executor
    .selectFrom('articles')
    .select((eb) => eb.fn.max('ordinal').as('last'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  if (last === null || last === undefined) return;
  const tokens = new Set<string>();
  for (let chunk = 0; chunk <= Number(last) >>> chunkBits; chunk++) {
    const from = chunk << chunkBits;
    const to = from + chunkSize;
    const articles = await executor
      .selectFrom('articles')
      .select(['ordinal', 'status', 'search_text'])
      .where('project_id', '=', projectId)
      .where('ordinal', '>=', from)
      .where('ordinal', '<', to)
      .execute();
    const tags = await executor
      .selectFrom('article_tags')
      .innerJoin('articles', 'articles.id', 'article_tags.article_id')
      .select(['articles.ordinal', 'article_tags.tag_id'])
      .where('articles.project_id', '=', projectId)
      .where('articles.ordinal', '>=', from)
      .where('articles.ordinal', '<', to)
      .execute();
    const tagsOf = groupTags(tags.map((tag) => [tag.ordinal, tag.tag_id]));
    const sets = new Map<string, Uint32Array>();
    for (const article of articles) {
      const low = article.ordinal & (chunkSize - 1);
      const keys = articleSetKeys({
        status: article.status,
        tagIds: tagsOf.get(article.ordinal) ?? [],
        searchText: article.search_text,
      });
      for (const key of keys) {
        let words = sets.get(key);
        if (words === undefined) sets.set(key, (words = emptyChunk()));
        words[low >>> 5] |= 1 << (low & 31);
      }
    }
    const rows: Array<{ project_id: string; set_key: string; chunk: number; members: Buffer }> = [];
    const added: string[] = [];
    for (const [key, words] of sets) {
      rows.push({ project_id: projectId, set_key: key, chunk, members: Buffer.from(encodeChunk(words)!) });
      const token = key.startsWith('t:') ? key.slice(2) : null;
      if (token !== null && !tokens.has(token)) {
        tokens.add(token);
        added.push(token);
      }
    }
    for (let first = 0; first < rows.length; first += keysPerStatement) {
      await executor
        .insertInto('article_sets')
        .values(rows.slice(first, first + keysPerStatement))
        .execute();
    }
    await addTokens(executor, projectId, added);
  }
}

/** Every project's sets and tokens, built from its articles. */
export async function rebuildAllArticleSets(executor: Executor): Promise<void> {
  const projects = await executor.selectFrom('projects').select('id').execute();
  for (const { id } of projects) await rebuildArticleSets(executor, id);
}
