// PostgreSQL only: triggers that NOTIFY every listening instance of the changes its in-memory
// caches depend on (db/change-listener.ts), whichever process made them (another instance, the
// CLI, plain SQL). `folio_keys`: a project or an API key changed (a content import bumps its
// project's content_version, so it notifies too); `last_used_at` alone does not count.
// `folio_views`: "project_id slug" of each article that got page views, so that cached answers
// showing its view count are refreshed within their allowed lag. SQLite has one process that
// writes page views and tells changes by PRAGMA data_version instead.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function changeNotifications(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create function folio_notify_keys() returns trigger language plpgsql as $$
        begin
          perform pg_notify('folio_keys', '');
          return null;
        end $$`.execute(db);
      await sql`create trigger projects_notify after insert or update or delete or truncate on projects
        for each statement execute function folio_notify_keys()`.execute(db);
      await sql`create trigger api_keys_notify
        after insert or delete or truncate or update of key_hash, revoked_at, kind, rate_limit, allowed_origins, project_id
        on api_keys for each statement execute function folio_notify_keys()`.execute(db);
      await sql`create function folio_notify_views() returns trigger language plpgsql as $$
        begin
          perform pg_notify('folio_views', a.project_id || ' ' || a.slug)
          from (select distinct article_id from inserted) as p join articles as a on a.id = p.article_id;
          return null;
        end $$`.execute(db);
      await sql`create trigger page_views_notify after insert on page_views
        referencing new table as inserted for each statement execute function folio_notify_views()`.execute(
        db,
      );
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`drop trigger page_views_notify on page_views`.execute(db);
      await sql`drop trigger api_keys_notify on api_keys`.execute(db);
      await sql`drop trigger projects_notify on projects`.execute(db);
      await sql`drop function folio_notify_views()`.execute(db);
      await sql`drop function folio_notify_keys()`.execute(db);
    },
  };
}
