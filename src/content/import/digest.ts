// What an import keeps of each article between reading its source and writing it: enough for the
// checks over the whole source (slugs, tags, storage, authors, feed ids) and to tell whether an
// article changed, without its text. A large source is checked whole keeping these (its articles
// spooled to disk, spool.ts), then its articles are read back batch by batch as they are written.
import { createHash } from 'node:crypto';
import type { ArticleInput, ContentSource } from './records.ts';

export interface ArticleDigest {
  file: string;
  slug: string;
  tags: string[];
  storageBytes: number;
  /** The hash of what the import stores of it: an unchanged article is left as it is. */
  hash: string;
  hasAuthor: boolean;
  hasGuid: boolean;
  /** It holds a NUL character (a JSON `\u0000`), which PostgreSQL cannot store in text. */
  hasNul: boolean;
}

/** One article read again for its batch: its index among the source's articles, and the article. */
export interface RereadArticle {
  index: number;
  article: ArticleInput;
}

/**
 * A source checked whole, whose articles are read again as they are written: its memory is that
 * of a batch, not of the blog. `reread` yields the articles `wanted` asks for, in order, exactly
 * as the check read them (a file changed since then changes nothing).
 */
export interface StreamedSource extends Omit<ContentSource, 'articles'> {
  articles: ArticleDigest[];
  reread(wanted: (index: number) => boolean): AsyncIterable<RereadArticle>;
  /** Frees what keeps the articles until they are read again (a spool file); the import never reads it after. */
  close?(): void;
}

const utf8Bytes = (value: string | null | undefined) => (value ? Buffer.byteLength(value, 'utf8') : 0);

export function articleStorageBytes(article: ArticleInput): number {
  let bytes =
    utf8Bytes(article.title) +
    utf8Bytes(article.slug) +
    utf8Bytes(article.excerpt) +
    utf8Bytes(article.content);
  for (const variant of article.variants) {
    bytes +=
      utf8Bytes(variant.key) +
      utf8Bytes(variant.title) +
      utf8Bytes(variant.excerpt) +
      utf8Bytes(variant.content);
  }
  if (article.seo) {
    const { keywords, ...texts } = article.seo;
    for (const text of Object.values(texts)) bytes += utf8Bytes(text);
    for (const keyword of keywords ?? []) bytes += utf8Bytes(keyword);
  }
  return bytes;
}

/**
 * What the content hash covers: every imported field but the file name and the feed id (fixed when
 * first stored, so a new one changes nothing). The site fields count only when not at their
 * defaults, so that an article stored before they existed keeps its hash.
 */
function hashedFields(article: ArticleInput): Record<string, unknown> {
  const { file: _file, guid: _guid, path, section, aliases, visibility, tiers, authors, ...stored } = article;
  const site = Object.entries({ path, section, aliases, visibility, tiers, authors }).filter(
    ([, value]) => !isDefaultValue(value),
  );
  return { ...stored, ...Object.fromEntries(site) };
}

function isDefaultValue(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === 'public' ||
    (Array.isArray(value) && value.length === 0)
  );
}

const hashOf = (json: string) => createHash('sha256').update(json).digest('base64url');

/** The hash of what an import stores of the article: an unchanged one is left as it is. */
export function contentHash(article: ArticleInput): string {
  return hashOf(JSON.stringify(hashedFields(article)));
}

export function digestOf(article: ArticleInput): ArticleDigest {
  const json = JSON.stringify(hashedFields(article));
  return {
    file: article.file,
    slug: article.slug,
    tags: article.tags,
    storageBytes: articleStorageBytes(article),
    hash: hashOf(json),
    hasAuthor: Boolean(article.author) || (article.authors?.length ?? 0) > 0,
    hasGuid: Boolean(article.guid),
    // Serialised, a NUL character is written `\u0000`; the feed id is the one field the hash leaves out.
    hasNul: json.includes('\\u0000') || (article.guid ?? '').includes('\u0000'),
  };
}

/**
 * Digests whose strings are their own: a slug or tag cut from a file's text by the YAML parser
 * keeps that whole text alive (measured: 1 KB a slug, most of the digests' memory), and the
 * articles of a blog share their tags' names.
 */
/** A copy of `text` that keeps nothing else alive (a string cut from a longer one keeps it whole). */
export const ownCopy = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

export interface Digester {
  (article: ArticleInput): ArticleDigest;
  /** A digest made elsewhere (a thread: its strings are its own), its tags shared with the others'. */
  shared(digest: ArticleDigest): ArticleDigest;
}

export function digester(): Digester {
  const known = new Map<string, string>();
  const own = (text: string) => {
    let kept = known.get(text);
    if (kept === undefined) {
      kept = ownCopy(text);
      if (known.size < maxShared) known.set(kept, kept);
    }
    return kept;
  };
  const share = (text: string) => {
    const kept = known.get(text);
    if (kept !== undefined) return kept;
    if (known.size < maxShared) known.set(text, text);
    return text;
  };
  const digest = (article: ArticleInput) => {
    const made = digestOf(article);
    // Only tags repeat: slugs and files are copied without being remembered.
    return { ...made, file: ownCopy(made.file), slug: ownCopy(made.slug), tags: made.tags.map(own) };
  };
  digest.shared = (made: ArticleDigest) => ({ ...made, tags: made.tags.map(share) });
  return digest;
}

/** Tag names shared between digests (a blog has far fewer; past this, each is copied). */
const maxShared = 100_000;

/** A source held in memory (tests, the write API's callers, site folders) as a streamed one. */
export function streamedFromMemory(source: ContentSource | StreamedSource): StreamedSource {
  if ('reread' in source) return source;
  const { articles, ...rest } = source;
  return {
    ...rest,
    articles: articles.map(digestOf),
    async *reread(wanted) {
      for (let index = 0; index < articles.length; index++)
        if (wanted(index)) yield { index, article: articles[index] };
    },
  };
}

/** The articles `wanted` asks for, read again from the source one by one, in order. */
export function rereader(
  source: StreamedSource,
  wanted: (index: number) => boolean,
): (index: number) => Promise<ArticleInput> {
  const reread = source.reread(wanted)[Symbol.asyncIterator]();
  return async (index) => {
    const next = await reread.next();
    if (next.done || next.value.index !== index)
      throw new Error(`article ${index} was asked for out of order, or is not in the source`);
    return next.value.article;
  };
}
