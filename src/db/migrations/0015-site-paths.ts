// What a blog moved in from another generator keeps: each article's own public path,
// its former paths, its feed id, its visibility and tiers, and its authors in the source's order;
// each project's URL pattern, time zone and default author. Articles stored before keep the feed id
// they were served with, their Folio id, and read as public with their one author.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function sitePaths(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') await db.transaction().execute((trx) => addColumns(trx, dialect));
      else await addColumns(db, dialect);
    },
  };
}

async function addColumns(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const articles = db.schema.alterTable('articles');
  // A path of its own (from permalink, url, the generator's rules), or null: the project's pattern.
  await articles.addColumn('path', key).execute();
  // The first folder of the source file under the content root (Hugo's section): the :section token.
  await articles.addColumn('section', 'text').execute();
  // JSON arrays: former paths (aliases, redirect_from), tiers, and authors
  // ([{ name, slug, image, title, url }]; empty: the one author of author_name / author_image).
  await articles.addColumn('aliases', 'text', (col) => col.notNull().defaultTo('[]')).execute();
  await articles.addColumn('tiers', 'text', (col) => col.notNull().defaultTo('[]')).execute();
  await articles.addColumn('authors', 'text', (col) => col.notNull().defaultTo('[]')).execute();
  await articles.addColumn('visibility', 'text', (col) => col.notNull().defaultTo('public')).execute();
  // Fixed when an article is first stored; null only until the update below fills it.
  await articles.addColumn('guid', 'text').execute();
  await articles.addColumn('cover_image_alt', 'text').execute();
  await db
    .updateTable('articles')
    .set({ guid: sql`id` })
    .execute();

  const projects = db.schema.alterTable('projects');
  await projects.addColumn('url_pattern', 'text', (col) => col.notNull().defaultTo('/:slug')).execute();
  await projects.addColumn('time_zone', 'text', (col) => col.notNull().defaultTo('UTC')).execute();
  // JSON { name, image } or null.
  await projects.addColumn('default_author', 'text').execute();
}
