// Traffic for the fault tests: workers that keep tracking POSTs, PUTs of the views already accepted
// and article reads in flight against the real server, and keep every answer, so that a test can
// say what was answered while a dependency failed and check that every view answered 201 is stored.
import { browser } from '../analytics/support.ts';
import { sleep, type Timed, timedFetch } from './support.ts';

export interface Answer extends Timed {
  what: 'POST track' | 'PUT track' | 'GET /v1/articles' | 'GET /v1/articles/hello';
  startedAt: number;
}

export class Load {
  readonly accepted: string[] = [];
  readonly answers: Answer[] = [];
  readonly #base: string;
  readonly #headers: Record<string, string>;
  #running = false;
  #workers: Array<Promise<void>> = [];

  constructor(base: string, headers: Record<string, string>) {
    this.#base = base;
    this.#headers = headers;
  }

  start(workers: number): void {
    this.#running = true;
    this.#workers = Array.from({ length: workers }, (_, index) => this.#work(index));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
  }

  /** The answers to requests sent from `from` until `to` (performance.now() times). */
  between(from: number, to: number): Answer[] {
    return this.answers.filter((answer) => answer.startedAt >= from && answer.startedAt < to);
  }

  async #work(worker: number): Promise<void> {
    for (let turn = worker; this.#running; turn++) {
      const answer = await this.#send(turn % 5);
      // A server that no longer answers at all would make this loop spin.
      if (typeof answer.status === 'string') await sleep(20);
    }
  }

  async #send(kind: number): Promise<Answer> {
    const startedAt = performance.now();
    const json = { ...this.#headers, 'content-type': 'application/json', 'user-agent': browser };
    let what: Answer['what'];
    let answer: Timed;
    if (kind <= 1 || (kind === 2 && this.accepted.length === 0)) {
      what = 'POST track';
      answer = await timedFetch(`${this.#base}/v1/analytics/track`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ slug: 'hello', timeOnPage: 1 }),
      });
      if (answer.status === 201) this.accepted.push(JSON.parse(answer.body).id);
    } else if (kind === 2) {
      what = 'PUT track';
      const id = this.accepted[Math.floor(Math.random() * this.accepted.length)];
      answer = await timedFetch(`${this.#base}/v1/analytics/track/${id}`, {
        method: 'PUT',
        headers: json,
        body: JSON.stringify({
          timeOnPage: 30,
          scrollDepth: 60,
          events: [{ type: 'scroll', timeOffset: 1 }],
        }),
      });
    } else {
      what = kind === 3 ? 'GET /v1/articles' : 'GET /v1/articles/hello';
      const path = kind === 3 ? '/v1/articles' : '/v1/articles/hello';
      answer = await timedFetch(`${this.#base}${path}`, { headers: this.#headers });
    }
    const recorded: Answer = { ...answer, what, startedAt };
    this.answers.push(recorded);
    return recorded;
  }
}

/** Why an answer breaks the rule "served, or 503 with Retry-After"; null when it keeps it. */
export function brokenAnswer(answer: Answer): string | null {
  const ok = answer.what === 'POST track' ? 201 : 200;
  if (answer.status === ok) return null;
  if (answer.status === 503 && answer.headers?.get('retry-after') === '5') return null;
  return `${answer.what}: ${answer.status} ${answer.body.slice(0, 200)}`;
}
