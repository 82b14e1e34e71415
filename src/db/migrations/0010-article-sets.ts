// Article sets, so that the list counts its filters exactly without reading every matching
// article (content/article-sets.ts): each article gets an ordinal within its project, and each
// project a bitmap of ordinals per stored status, tag, token of the search text and piece of a
// token of up to three characters, in chunks of 4,096; plus the dictionary of its tokens with a
// substring index (FTS5 trigram on SQLite, pg_trgm on PostgreSQL), where a search term finds the
// tokens that hold it. Existing articles are numbered by creation and their sets built here.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import { rebuildAllArticleSets } from './frozen/0010-article-sets.ts';

export function articleSets(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // Kysely runs each migration in a transaction on PostgreSQL only. This one builds the sets of
      // every article, which takes a while on a large database (26 s for 100,000 articles on
      // SQLite): all of it or nothing, on SQLite too.
      if (dialect === 'sqlite') await db.transaction().execute((trx) => build(trx, dialect));
      else await build(db, dialect);
    },
  };
}

async function build(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema
    .alterTable('articles')
    .addColumn('ordinal', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update articles set ordinal = numbered.n
        from (select id, row_number() over (partition by project_id order by created_at, id) - 1 as n from articles) as numbered
        where articles.id = numbered.id`.execute(db);
  await db.schema
    .createIndex('articles_project_ordinal')
    .on('articles')
    .columns(['project_id', 'ordinal'])
    .unique()
    .execute();
  // The articles scheduled at a moment (published, publishedAt in the future) by ordinal, from
  // the index alone: the one part of a status count that depends on the time.
  await db.schema
    .createIndex('articles_project_status_published_at_ordinal')
    .on('articles')
    .columns(['project_id', 'status', 'published_at', 'ordinal'])
    .execute();
  await db.schema.dropIndex('articles_project_status_published_at').execute();

  let sets = db.schema
    .createTable('article_sets')
    .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('set_key', key, (col) => col.notNull())
    .addColumn('chunk', 'integer', (col) => col.notNull())
    .addColumn('members', dialect === 'postgres' ? 'bytea' : 'blob', (col) => col.notNull())
    .addPrimaryKeyConstraint('article_sets_pk', ['project_id', 'set_key', 'chunk']);
  // SQLite: the rows stored in key order, so that a set's chunks are read together.
  if (dialect === 'sqlite') sets = sets.modifyEnd(sql`without rowid`);
  await sets.execute();

  await db.schema
    .createTable('search_tokens')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (col) => col.primaryKey())
    .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('token', key, (col) => col.notNull())
    .addUniqueConstraint('search_tokens_project_token', ['project_id', 'token'])
    .execute();
  if (dialect === 'postgres') {
    await sql`create index search_tokens_token_trgm on search_tokens using gin (token gin_trgm_ops)`.execute(
      db,
    );
  } else {
    await sql`create virtual table search_token_index using fts5(token, content = 'search_tokens', content_rowid = 'id', tokenize = 'trigram case_sensitive 1')`.execute(
      db,
    );
    await sql`create trigger search_tokens_insert after insert on search_tokens begin
          insert into search_token_index (rowid, token) values (new.id, new.token);
        end`.execute(db);
    await sql`create trigger search_tokens_delete after delete on search_tokens begin
          insert into search_token_index (search_token_index, rowid, token) values ('delete', old.id, old.token);
        end`.execute(db);
  }
  await rebuildAllArticleSets(db);
  // Planner statistics for the new tables and indexes: with the old indexes' statistics and
  // none for the new ones, SQLite took the (project_id, ordinal) index for every list and
  // sorted the whole project (measured on 100,000 articles: 12 to 155 ms per page).
  for (const table of ['articles', 'article_sets', 'search_tokens']) {
    await sql`analyze ${sql.table(table)}`.execute(db);
  }
}
