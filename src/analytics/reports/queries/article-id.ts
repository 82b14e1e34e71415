// The id of a project's article with a slug, for the statistics restricted to one article:
// compiled once per database handle, reading one row by a unique key.
import { type Compiled, compiledFor } from '../../../db/compiled-query.ts';
import type { Db } from '../../../db/database.ts';

const idBySlug: Compiled<{ id: string }> = new WeakMap();

export async function findArticleId(db: Db, projectId: string, slug: string): Promise<string | null> {
  // No stored slug holds a NUL, and PostgreSQL would refuse the parameter.
  if (slug.includes('\u0000')) return null;
  const query = compiledFor(idBySlug, db, () =>
    db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', '')
      .where('slug', '=', '')
      .compile(),
  );
  const [row] = await db.executeCompiled<{ id: string }>({ ...query, parameters: [projectId, slug] });
  return row?.id ?? null;
}
