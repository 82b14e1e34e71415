// PostgreSQL only: `folio_views` (0011) also carries each article's new view count and the
// project's content version, after the slugs: "project_id slug slug … @version =count =count …",
// the counts in the slugs' order. An instance then writes the count into its cached answer of the
// article without reading it back (every instance did, for every article whose count changed); the
// version tells it whether the slug still names the article counted (a slug deleted and taken
// again since is read from the database). Slugs hold neither `@` nor `=`, so an instance that
// reads only slugs finds no article by those tokens. A payload stays under PostgreSQL's 8,000
// bytes: slugs and counts are cut into chunks of about 7,000 bytes.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import { batchedViewNotifications } from './0011-batched-view-notifications.ts';

export function viewCountsNotified(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create or replace function folio_notify_views() returns trigger language plpgsql as $$
        begin
          perform pg_notify('folio_views', viewed.project_id || ' ' || string_agg(viewed.slug, ' ' order by viewed.slug)
            || ' @' || viewed.content_version || ' ' || string_agg('=' || viewed.view_count, ' ' order by viewed.slug))
          from (
            select a.project_id, a.slug, i.view_count, p.content_version,
              sum(length(a.slug) + length(i.view_count::text) + 3)
                over (partition by a.project_id order by a.slug) / 7000 as chunk
            from (select distinct article_id, view_count from inserted) as i
            join articles as a on a.id = i.article_id
            join projects as p on p.id = a.project_id
          ) as viewed
          group by viewed.project_id, viewed.content_version, viewed.chunk;
          return null;
        end $$`.execute(db);
    },
    // The function as migration 0011 made it.
    down: batchedViewNotifications(dialect).up,
  };
}
