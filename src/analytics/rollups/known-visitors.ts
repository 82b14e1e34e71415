// The visitor-set entries of today that this database handle's roll-ups stored, so that a returning
// visitor's page views cost lookups here rather than writes (queries/write-rollups.ts uses it).

/** Keys kept at most; past it the memo starts again (it only saves writes). */
const maxKnownVisitors = 200_000;

/**
 * The visitor-set entries of today (UTC) that a committed roll-up of this process stored or found
 * stored: a page view's ~10 candidates (its visitor in the day's and hour's sets of the project,
 * the article and each breakdown value) are then a lookup here, not a write each, for every page
 * view after a visitor's first. Sound because today's entries are never deleted while the process
 * runs, except by a rebuild, which stores again every visitor of the page views it recounts (these
 * included): retention and salt rotation remove earlier days only, and a deleted project's id is
 * never reused. Entries of other days are not kept, and the memo is emptied when the day changes.
 */
export class KnownVisitors {
  #day = '';
  readonly #keys = new Set<string>();

  /** The day whose entries are kept (today, as of the last call of `at`). */
  get day(): string {
    return this.#day;
  }

  /** Moves to `day`, forgetting the entries of an earlier one. */
  at(day: string): this {
    if (day !== this.#day) {
      this.#day = day;
      this.#keys.clear();
    }
    return this;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Adds the entries that a committed batch stored or found. */
  learn(keys: string[]): void {
    if (this.#keys.size + keys.length > maxKnownVisitors) this.#keys.clear();
    for (const key of keys) this.#keys.add(key);
  }
}
