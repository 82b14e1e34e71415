// The article's Markdown rendered once, at import, to sanitised HTML: the `html` field. Null for
// articles stored before this migration until their next import fills it in.
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';

export function articleHtml(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('articles').addColumn('html', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('articles').dropColumn('html').execute();
    },
  };
}
