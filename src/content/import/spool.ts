// The articles of a source as its check read them, kept on disk until the import writes them: each
// file is read and parsed once (parsing a folder's front matter again was most of its second pass)
// and memory holds a batch, not the blog. The file is unlinked as soon as it is opened, so that
// nothing is left behind however the process ends; it lives in the temporary folder (TMPDIR).
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArticleDigest, StreamedSource } from './digest.ts';
import type { ArticleInput, ContentSource } from './records.ts';

/** Bytes written or read at a time. */
const blockBytes = 1 << 20;
const NEWLINE = 0x0a;

/** Closes the file of a spool dropped without close(): a test's source, a failed read. */
const unclosed = new FinalizationRegistry<{ fd: number | null }>((handle) => {
  if (handle.fd !== null) closeSync(handle.fd);
});

/**
 * Articles appended one after another and read back in order, each as one line of JSON (JSON
 * writes a line break inside a string as `\n`, so a line is one article).
 */
export class ArticleSpool {
  readonly #handle: { fd: number | null };
  /** Set only where an open file could not be unlinked: it is removed on close(). */
  #path: string | null = null;
  #pending: string[] = [];
  #pendingLength = 0;
  #size = 0;
  #count = 0;

  constructor() {
    const path = join(tmpdir(), `folio-import-${randomUUID()}`);
    const fd = openSync(path, 'wx+', 0o600);
    try {
      unlinkSync(path);
    } catch {
      // A platform that cannot unlink an open file keeps it until close().
      this.#path = path;
    }
    this.#handle = { fd };
    unclosed.register(this, this.#handle, this);
  }

  /** The number of articles appended. */
  get count(): number {
    return this.#count;
  }

  append(article: ArticleInput): void {
    this.appendJson(JSON.stringify(article));
  }

  /** An article already serialised (by a thread) with JSON.stringify. */
  appendJson(json: string): void {
    const line = `${json}\n`;
    this.#pending.push(line);
    this.#pendingLength += line.length;
    this.#count++;
    if (this.#pendingLength >= blockBytes) this.#flush();
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    const bytes = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingLength = 0;
    let written = 0;
    while (written < bytes.length)
      written += writeSync(this.#fd(), bytes, written, bytes.length - written, this.#size + written);
    this.#size += bytes.length;
  }

  #fd(): number {
    if (this.#handle.fd === null) throw new Error('the import spool is closed');
    return this.#handle.fd;
  }

  /** The articles `wanted` asks for (by their order of appending, from 0), in order; the others are not parsed. */
  *read(wanted: (index: number) => boolean): Generator<{ index: number; article: ArticleInput }> {
    this.#flush();
    const fd = this.#fd();
    const block = Buffer.allocUnsafe(blockBytes);
    // The start of a line cut by the end of the previous block.
    let carried: Buffer | null = null;
    let index = 0;
    for (let position = 0; position < this.#size;) {
      const length = readSync(fd, block, 0, Math.min(blockBytes, this.#size - position), position);
      position += length;
      const data = block.subarray(0, length);
      let start = 0;
      for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
        if (wanted(index)) {
          const line =
            carried === null
              ? data.subarray(start, end)
              : Buffer.concat([carried, data.subarray(start, end)]);
          yield { index, article: JSON.parse(line.toString('utf8')) as ArticleInput };
        }
        carried = null;
        index++;
        start = end + 1;
      }
      // Copied: the block is read over by the next one.
      if (start < length)
        carried = Buffer.concat(carried === null ? [data.subarray(start)] : [carried, data.subarray(start)]);
    }
  }

  close(): void {
    if (this.#handle.fd === null) return;
    closeSync(this.#handle.fd);
    this.#handle.fd = null;
    unclosed.unregister(this);
    if (this.#path !== null) unlinkSync(this.#path);
  }
}

/** A checked source whose articles are read back from `spool`, which it closes with itself. */
export function spooledSource(
  source: Omit<ContentSource, 'articles'>,
  articles: ArticleDigest[],
  spool: ArticleSpool,
): StreamedSource {
  return {
    ...source,
    articles,
    async *reread(wanted) {
      yield* spool.read(wanted);
    },
    close: () => spool.close(),
  };
}
