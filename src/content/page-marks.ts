// Marks along long lists, so that a deep page is a seek and a short walk: for a list without
// search (with tag filters or not), sorted by a marked sort (article-queries.ts), the place of every
// `markEvery`th article in the order read, kept per database handle and project version: sorted by
// updatedAt, its content version (any change moves an article along it); else its order version,
// which a change moving no article in or along such a list leaves as it is (an edit of an article's
// text; content/write-articles.ts), and any other change makes them unreachable. Page 5,000 of
// 100,000 articles then walks at most `markEvery` index entries from its mark instead of 50,000
// from the start of the list; the first deep page of a version finds the marks it needs by walking
// as far, in one statement. A filtered list's walk looks each article up among the filter's
// matches by its ordinal (dialect-sql.ts ordinalFlagged), kept only if the version is unchanged.
import type { Db } from '../db/database.ts';
import type { OrdinalFlags } from '../db/dialect-sql.ts';
import type { Project } from '../db/schema.ts';
import { nextPublication } from '../projects/next-publication.ts';
import type { Run } from './article-matches.ts';
import {
  type ArticleFilter,
  type ArticleOrder,
  articleListMarksQuery,
  type ListMark,
  type MarkedSort,
  markedSorts,
  marksVersionColumn,
} from './article-queries.ts';

/** Articles between two marks: the most a deep page walks past its mark. */
export const markEvery = 2_000;

interface MarkedList {
  /** marks[k]: the place of the article at offset (k + 1) * step - 1. */
  marks: ListMark[];
  /** The `now` of the filter the marks were found for (status filters depend on it). */
  foundAt: string;
  /** The next scheduled publication after foundAt, past which a status filter's marks are wrong. */
  until: string | null;
}

interface ProjectMarks {
  version: number;
  lists: Map<string, MarkedList>;
}

const maxProjects = 1_000;
const kept = new WeakMap<Db, Map<string, ProjectMarks>>();

/** Whether a list's pages can be found from marks: no search, a marked sort. */
export function marksApply(
  filter: ArticleFilter,
  order: ArticleOrder,
): order is { sort: MarkedSort; order: 'asc' | 'desc' } {
  return filter.searchTerms.length === 0 && order.sort in markedSorts;
}

/**
 * The mark nearest before `offset` in the list read in this order (`reverse`: from its end), and
 * the articles before the first one after it; null when the offset is before the first mark, or
 * the content changed while the marks were found.
 */
export async function markBefore(
  db: Db,
  run: Run,
  list: {
    filter: ArticleFilter;
    order: { sort: MarkedSort; order: 'asc' | 'desc' };
    project: Project;
    /**
     * A filtered list's matches as flags, read after `project` (from the article sets), made at
     * the first call: the walk then looks each article up among them by its ordinal, instead of
     * checking its status and probing its tags. Exact, since the marks are kept only when the
     * project's version is still `project`'s when they were found.
     */
    matches?: (() => OrdinalFlags) | null;
  },
  page: { offset: number; reverse: boolean },
  step = markEvery,
): Promise<{ after: ListMark; skipped: number } | null> {
  const wanted = Math.floor(page.offset / step);
  if (wanted === 0) return null;
  const { filter, order, project } = list;
  const versionColumn = marksVersionColumn(order.sort);
  const version = Number(project[versionColumn]);
  const byStatus = filter.status !== undefined || filter.published !== undefined;
  const key = JSON.stringify([
    step,
    order.sort,
    order.order,
    page.reverse,
    filter.status,
    filter.published,
    filter.anyTagIds,
    filter.allTagIds,
    filter.excludeTagIds,
  ]);
  let projects = kept.get(db);
  if (projects === undefined) kept.set(db, (projects = new Map()));
  const projectKey = `${project.id}\u0000${versionColumn}`;
  let entry = projects.get(projectKey);
  // A request that read the project before a content change finds its marks without keeping them.
  if (entry !== undefined && entry.version > version) entry = { version, lists: new Map() };
  else if (entry === undefined || entry.version !== version) {
    if (projects.size >= maxProjects) projects.clear();
    projects.set(projectKey, (entry = { version, lists: new Map() }));
  }
  // A status filter's list changes when a scheduled article comes due, with no content change.
  const usable = (kept: MarkedList | undefined): kept is MarkedList =>
    kept !== undefined &&
    (!byStatus || (filter.now >= kept.foundAt && (kept.until === null || filter.now < kept.until)));
  const found = entry.lists.get(key);
  const marks = usable(found) ? [...found.marks] : [];
  if (marks.length < wanted) {
    const until = byStatus ? await nextPublication(db, project, filter.now) : null;
    const rows = await run(
      articleListMarksQuery(
        db.kysely,
        db.dialect,
        filter,
        order,
        { reverse: page.reverse, after: marks.at(-1) },
        step,
        wanted - marks.length,
        list.matches ? { flagged: list.matches() } : 'walk',
      ),
    );
    for (const row of rows) {
      if (Number(row.version) !== version) return null;
      marks.push({ value: row.value, id: row.id });
    }
    if (marks.length < wanted) return null;
    // Kept unless a request meanwhile kept more of them (or the content changed).
    const current = entry.lists.get(key);
    if (projects.get(projectKey) === entry && (!usable(current) || current.marks.length < marks.length))
      entry.lists.set(key, { marks, foundAt: filter.now, until });
  }
  return { after: marks[wanted - 1], skipped: wanted * step };
}
