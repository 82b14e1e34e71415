// The changes a batch of writes makes to the daily rollups and view counts, summed per row, so that
// each row is written once per batch, in key order (two instances then lock shared rows in the same
// order).
import type { PageViewTable } from '../../db/schema.ts';
import {
  addContribution,
  type Contribution,
  contributionOf,
  emptyContribution,
  isZero,
} from '../contribution.ts';

export interface VisitorKey {
  project_id: string;
  day: string;
  visitor_id: string;
}

export interface DayKey {
  project_id: string;
  day: string;
}

export interface ArticleRollup extends Contribution {
  project_id: string;
  day: string;
  article_id: string;
}

export interface DayRollup extends Contribution {
  project_id: string;
  day: string;
  visitors: number;
}

export interface ArticleViews {
  article_id: string;
  project_id: string;
  view_count: number;
}

export interface CountryRollup {
  project_id: string;
  day: string;
  country: string;
  views: number;
}

export class RollupChanges {
  readonly #articles = new Map<string, ArticleRollup>();
  readonly #days = new Map<string, DayRollup>();
  readonly #countries = new Map<string, CountryRollup>();
  readonly #visitors = new Map<string, VisitorKey>();
  readonly #viewCounts = new Map<string, ArticleViews>();

  /** Adds `sign × change` to the article's rollup of the day, and to the project's. */
  addArticle(projectId: string, day: string, articleId: string, change: Contribution, sign = 1): void {
    const key = `${projectId}\u0000${day}\u0000${articleId}`;
    let row = this.#articles.get(key);
    if (row === undefined) {
      row = { project_id: projectId, day, article_id: articleId, ...emptyContribution() };
      this.#articles.set(key, row);
    }
    addContribution(row, change, sign);
    addContribution(this.#day(projectId, day), change, sign);
  }

  /** A page view updated from `before` to `after`. */
  addUpdate(before: PageViewTable | StoredMeasures, after: PageViewTable | StoredMeasures): void {
    this.addArticle(after.project_id, after.day, after.article_id, contributionOf(after));
    this.addArticle(before.project_id, before.day, before.article_id, contributionOf(before), -1);
  }

  /** A new page view: its contribution, its country, its visitor id. */
  addCreated(row: StoredMeasures & Pick<PageViewTable, 'country' | 'visitor_id'>): void {
    this.addArticle(row.project_id, row.day, row.article_id, contributionOf(row));
    if (row.country !== null) {
      const key = `${row.project_id}\u0000${row.day}\u0000${row.country}`;
      const country = this.#countries.get(key);
      if (country) country.views++;
      else
        this.#countries.set(key, {
          project_id: row.project_id,
          day: row.day,
          country: row.country,
          views: 1,
        });
    }
    this.#visitors.set(`${row.project_id}\u0000${row.day}\u0000${row.visitor_id}`, {
      project_id: row.project_id,
      day: row.day,
      visitor_id: row.visitor_id,
    });
  }

  /** A new page view of an article that still exists: one more on its count. */
  addView(row: Pick<PageViewTable, 'project_id' | 'article_id'>): void {
    const counted = this.#viewCounts.get(row.article_id);
    if (counted === undefined)
      this.#viewCounts.set(row.article_id, {
        article_id: row.article_id,
        project_id: row.project_id,
        view_count: 1,
      });
    else counted.view_count++;
  }

  /** A visitor id that was not yet in its day's set. */
  addNewVisitor(key: DayKey): void {
    this.#day(key.project_id, key.day).visitors++;
  }

  #day(projectId: string, day: string): DayRollup {
    const key = `${projectId}\u0000${day}`;
    let row = this.#days.get(key);
    if (row === undefined) {
      row = { project_id: projectId, day, visitors: 0, ...emptyContribution() };
      this.#days.set(key, row);
    }
    return row;
  }

  get visitors(): VisitorKey[] {
    return sorted(this.#visitors);
  }

  get days(): DayRollup[] {
    return sorted(this.#days).filter((row) => row.visitors !== 0 || !isZero(row));
  }

  get articles(): ArticleRollup[] {
    return sorted(this.#articles).filter((row) => !isZero(row));
  }

  get countries(): CountryRollup[] {
    return sorted(this.#countries);
  }

  /** The views to add to each article's count (table article_views). */
  get viewCounts(): ArticleViews[] {
    return sorted(this.#viewCounts);
  }
}

type StoredMeasures = Pick<
  PageViewTable,
  'project_id' | 'day' | 'article_id' | 'source' | 'time_on_page_ms' | 'scroll_depth_centi' | 'bounced'
>;

function sorted<T>(entries: Map<string, T>): T[] {
  return [...entries.keys()].sort().map((key) => entries.get(key)!);
}
