// The earliest scheduled publication of a project, which no cached answer may outlive (the answer
// cache asks it for every answer it keeps: on a blog being read, nearly every article read once its
// view count moved). It only changes with the project's content, so it is kept per database handle
// and project under the project's content version (bumped by every content change, through any
// instance), and asked again once that moment has passed.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { nextScheduledPublication } from './queries.ts';

interface Kept {
  version: number;
  /** The earliest publication after `askedAt`, or null for none. */
  next: string | null;
  askedAt: string;
}

const maxProjects = 10_000;
const kept = new WeakMap<Db, Map<string, Kept>>();

/** The project's earliest publishedAt still in the future at `now` (ISO timestamps), or null. */
export async function nextPublication(
  db: Db,
  project: Pick<Project, 'id' | 'content_version'>,
  now: string,
): Promise<string | null> {
  let projects = kept.get(db);
  if (projects === undefined) kept.set(db, (projects = new Map()));
  const known = projects.get(project.id);
  // Still the answer while the content is the same and the moment found has not come (an answer
  // asked later than `now`, by a request that waited, would not hold for it).
  if (
    known !== undefined &&
    known.version === project.content_version &&
    known.askedAt <= now &&
    (known.next === null || known.next > now)
  ) {
    return known.next;
  }
  const next = await nextScheduledPublication(db.kysely, project.id, now);
  const current = projects.get(project.id);
  if (current === undefined || current.version <= project.content_version) {
    if (projects.size >= maxProjects) projects.clear();
    projects.set(project.id, { version: project.content_version, next, askedAt: now });
  }
  return next;
}
