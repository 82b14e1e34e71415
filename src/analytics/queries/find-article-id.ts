// The id of a project's article with a slug. It runs on every tracking POST: compiled once per
// database, only its parameters change.
import type { CompiledQuery } from 'kysely';
import type { Db } from '../../db/database.ts';

const compiled = new WeakMap<Db, CompiledQuery<{ id: string }>>();

export async function findArticleId(db: Db, projectId: string, slug: string): Promise<string | null> {
  // No stored slug holds a NUL, and PostgreSQL would refuse the parameter.
  if (slug.includes('\u0000')) return null;
  let query = compiled.get(db);
  if (query === undefined) {
    query = db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', '')
      .where('slug', '=', '')
      .compile();
    compiled.set(db, query);
  }
  const [row] = await db.executeCompiled<{ id: string }>({ ...query, parameters: [projectId, slug] });
  return row?.id ?? null;
}
