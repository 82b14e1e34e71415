// The redirects a front end serves for a moved blog: each published article's former paths
// (`aliases`, `redirect_from`) to its current path, as paths, since the front end serves them on
// its own host.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { articlePath, usableUrlSettings } from './article-url.ts';
import { compareCodeUnits } from './lists.ts';
import { findPublishedPaths } from './redirect-queries.ts';

export interface Redirect {
  from: string;
  to: string;
  status: 301;
}

/**
 * Ordered by `from`. A former path that is a published article's current path is left out (the
 * live page wins), and so is one pointing at itself; a former path two articles claim goes to the
 * newer one (by publishedAt).
 */
export async function listRedirects(db: Db, project: Project): Promise<{ data: Redirect[] }> {
  const rows = await findPublishedPaths(db.kysely, project.id, new Date().toISOString());
  const settings = usableUrlSettings(project);
  const paths = rows.map((row) => articlePath(settings, row));
  const live = new Set(paths);
  const redirects = new Map<string, Redirect>();
  rows.forEach((row, index) => {
    for (const from of JSON.parse(row.aliases || '[]') as string[]) {
      if (live.has(from) || redirects.has(from)) continue;
      redirects.set(from, { from, to: paths[index], status: 301 });
    }
  });
  return { data: [...redirects.values()].sort((a, b) => compareCodeUnits(a.from, b.from)) };
}
