// PostgreSQL only: `folio_views` (0003, on the view counts since 0009) carries the articles whose
// count a statement changed in one notification per project, "project_id slug slug …" (slugs hold
// no spaces), instead of one per article. A roll-up of 500 page views of random articles among
// 10,000 sent some 480 messages, which every listening instance parsed and dispatched one by one.
// (The trigger's own statement costs PostgreSQL about as much as before, 13-14 µs a page view at
// 2,000 POST/s by pg_stat_statements: its distinct and join over the transition table.) A
// payload stays under PostgreSQL's 8,000 bytes: slugs are cut into chunks of about 7,000 bytes (a
// slug is at most 200).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function batchedViewNotifications(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create or replace function folio_notify_views() returns trigger language plpgsql as $$
        begin
          perform pg_notify('folio_views', project_id || ' ' || string_agg(slug, ' '))
          from (
            select a.project_id, a.slug,
              sum(length(a.slug) + 1) over (partition by a.project_id order by a.slug) / 7000 as chunk
            from (select distinct article_id from inserted) as p join articles as a on a.id = p.article_id
          ) as viewed
          group by project_id, chunk;
          return null;
        end $$`.execute(db);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create or replace function folio_notify_views() returns trigger language plpgsql as $$
        begin
          perform pg_notify('folio_views', a.project_id || ' ' || a.slug)
          from (select distinct article_id from inserted) as p join articles as a on a.id = p.article_id;
          return null;
        end $$`.execute(db);
    },
  };
}
