// The articles an import writes, read back from its source in order and rendered ahead of their
// writes: in a thread of their own for a large import, so that rendering (half of the work of a
// first import) runs while the main thread writes the rows of the articles before them.
import { WorkerCalls } from '../../db/worker-calls.ts';
import type { RereadArticle, StreamedSource } from './digest.ts';
import { type PreparedArticle, renderArticle, type RenderedArticle } from './render.ts';

/** Articles sent to the thread at a time. */
const chunkArticles = 100;
/** Chunks rendered ahead of the one being written: enough to keep the thread busy, few for memory. */
const chunksAhead = 4;

export class RenderAhead {
  readonly #source: StreamedSource;
  readonly #reread: AsyncIterator<RereadArticle>;
  readonly #thread: WorkerCalls | null;
  readonly #ahead: Array<Promise<Array<{ index: number; prepared: PreparedArticle }>>> = [];
  #current: Array<{ index: number; prepared: PreparedArticle }> = [];
  #position = 0;
  #exhausted = false;

  /** `thread`: render in a worker thread (else here, still a few chunks ahead). */
  constructor(source: StreamedSource, wanted: (index: number) => boolean, options: { thread: boolean }) {
    this.#source = source;
    this.#reread = source.reread(wanted)[Symbol.asyncIterator]();
    this.#thread = options.thread
      ? new WorkerCalls(new URL('./render-thread.ts', import.meta.url), null, 'import render thread', {
          youngGenerationMb: 8,
        })
      : null;
  }

  /** The article of `index`, prepared: the indices asked for are those wanted, in order. */
  async article(index: number): Promise<PreparedArticle> {
    if (this.#position >= this.#current.length) {
      await this.#fill();
      const next = this.#ahead.shift();
      this.#current = next === undefined ? [] : await next;
      this.#position = 0;
      // The next chunks are sent before this one is written.
      await this.#fill();
    }
    const item = this.#current[this.#position++];
    if (item?.index !== index)
      throw new Error(`article ${index} was asked for out of order, or is not in the source`);
    return item.prepared;
  }

  async #fill(): Promise<void> {
    while (!this.#exhausted && this.#ahead.length < chunksAhead) {
      const chunk: RereadArticle[] = [];
      while (chunk.length < chunkArticles) {
        const next = await this.#reread.next();
        if (next.done) {
          this.#exhausted = true;
          break;
        }
        chunk.push(next.value);
      }
      if (chunk.length === 0) return;
      const rendering = this.#render(chunk);
      // Awaited in turn by article(); a failure meanwhile is not an unhandled rejection.
      rendering.catch(() => {});
      this.#ahead.push(rendering);
    }
  }

  async #render(chunk: RereadArticle[]): Promise<Array<{ index: number; prepared: PreparedArticle }>> {
    const articles = chunk.map((item) => item.article);
    const rendered =
      this.#thread === null
        ? articles.map(renderArticle)
        : ((await this.#thread.call({ articles })) as RenderedArticle[]);
    return chunk.map(({ index, article }, i) => {
      const digest = this.#source.articles[index];
      return {
        index,
        prepared: {
          input: article,
          hash: digest.hash,
          storageBytes: digest.storageBytes,
          rendered: rendered[i],
        },
      };
    });
  }

  /** Ends the thread (the import is over, or failed). */
  async close(): Promise<void> {
    await this.#thread?.close();
  }
}
