// Tags get a slug, unique within their project, by which GET /v1/tags/:name also finds them. Tags
// stored before it get one derived from their name, the oldest first: two names deriving one slug
// give `slug` and `slug-2`.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import { freeSlug, slugOfTagName } from './frozen/0014-tag-slugs.ts';

export function tagSlugs(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // Kysely runs a migration in a transaction on PostgreSQL only: all of it or nothing on SQLite too.
      if (dialect === 'sqlite') await db.transaction().execute((trx) => addSlugs(trx, dialect));
      else await addSlugs(db, dialect);
    },
  };
}

async function addSlugs(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  // Every insert since writes a slug; the column stays nullable only because SQLite cannot add a
  // NOT NULL column without a default.
  await db.schema.alterTable('tags').addColumn('slug', key).execute();
  const tags = await db
    .selectFrom('tags')
    .select(['id', 'project_id', 'name'])
    .orderBy('project_id')
    .orderBy('created_at')
    .orderBy('name_key')
    .execute();
  const takenByProject = new Map<string, Set<string>>();
  for (const tag of tags) {
    let taken = takenByProject.get(tag.project_id);
    if (taken === undefined) takenByProject.set(tag.project_id, (taken = new Set()));
    const slug = freeSlug(slugOfTagName(tag.name), taken);
    taken.add(slug);
    await db.updateTable('tags').set({ slug }).where('id', '=', tag.id).execute();
  }
  await db.schema
    .createIndex('tags_project_slug')
    .on('tags')
    .columns(['project_id', 'slug'])
    .unique()
    .execute();
}
