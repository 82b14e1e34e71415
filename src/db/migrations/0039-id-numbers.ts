// A small integer for every project and article, for the tables where an id is repeated in every
// row (page views): a number takes 1 to 4 bytes where the UUID text takes 37, in the row and again
// in its key. Each is given once, by a trigger on the insert of the project or article, whatever
// inserts it (the API, an import, plain SQL), and never given again: an article's number outlives
// the article (a pruned article brought back by an import keeps its id, and with it its number and
// its page views), and goes only with its project. Numbers are never shown in the API.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function idNumbers(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        // AUTOINCREMENT: a number is never given again, even after its row was deleted.
        await sql`create table project_nums (num integer primary key autoincrement,
          project_id text not null unique references projects (id) on delete cascade)`.execute(db);
        await sql`create table article_nums (num integer primary key autoincrement,
          article_id text not null unique,
          project_id text not null references projects (id) on delete cascade)`.execute(db);
        await sql`create index article_nums_project on article_nums (project_id)`.execute(db);
        await sql`create trigger projects_num after insert on projects
          begin insert or ignore into project_nums (project_id) values (new.id); end`.execute(db);
        await sql`create trigger articles_num after insert on articles
          begin insert or ignore into article_nums (article_id, project_id) values (new.id, new.project_id); end`.execute(
          db,
        );
      } else {
        await sql`create table project_nums (num integer generated always as identity primary key,
          project_id text collate "C" not null unique references projects (id) on delete cascade)`.execute(
          db,
        );
        await sql`create table article_nums (num integer generated always as identity primary key,
          article_id text collate "C" not null unique,
          project_id text collate "C" not null references projects (id) on delete cascade)`.execute(db);
        await sql`create index article_nums_project on article_nums (project_id)`.execute(db);
        // Once per statement, from its inserted rows: an import of many articles is one insert.
        await sql`create function folio_project_nums() returns trigger language plpgsql as $$
          begin
            insert into project_nums (project_id) select id from added order by id on conflict do nothing;
            return null;
          end $$`.execute(db);
        await sql`create function folio_article_nums() returns trigger language plpgsql as $$
          begin
            insert into article_nums (article_id, project_id) select id, project_id from added order by id
              on conflict do nothing;
            return null;
          end $$`.execute(db);
        await sql`create trigger projects_num after insert on projects referencing new table as added
          for each statement execute function folio_project_nums()`.execute(db);
        await sql`create trigger articles_num after insert on articles referencing new table as added
          for each statement execute function folio_article_nums()`.execute(db);
      }
      await sql`insert into project_nums (project_id) select id from projects order by created_at, id`.execute(
        db,
      );
      await sql`insert into article_nums (article_id, project_id)
        select id, project_id from articles order by project_id, created_at, id`.execute(db);
      // Removed articles keep theirs too: an import may bring them back.
      const ignore = dialect === 'sqlite' ? sql`or ignore` : sql``;
      const orNothing = dialect === 'sqlite' ? sql`` : sql`on conflict do nothing`;
      await sql`insert ${ignore} into article_nums (article_id, project_id)
        select article_id, project_id from removed_articles order by project_id, removed_at, article_id ${orNothing}`.execute(
        db,
      );
    },
    async down(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        await sql`drop trigger articles_num`.execute(db);
        await sql`drop trigger projects_num`.execute(db);
      } else {
        await sql`drop trigger articles_num on articles`.execute(db);
        await sql`drop trigger projects_num on projects`.execute(db);
        await sql`drop function folio_article_nums()`.execute(db);
        await sql`drop function folio_project_nums()`.execute(db);
      }
      await sql`drop table article_nums`.execute(db);
      await sql`drop table project_nums`.execute(db);
    },
  };
}
