// The analytics benchmark's data: articles, and page views generated inside the database by
// INSERT … SELECT (not through HTTP), spread over a year. Shared by the benchmark and by profiling
// scripts that need the same data.
import { sql } from 'kysely';
import type { ArticleInput } from '../src/content/import/records.ts';
import { importContent } from '../src/content/import.ts';
import type { Db } from '../src/db/database.ts';
import { StringIdCache, stringIds } from '../src/db/page-view-strings.ts';
import { createProject } from '../src/projects/service.ts';

export const historyDays = 365;
const countries = 'USGBDEFRNLSEESITCAAUJPBRINPLCHATBEDKNOIE';

export function benchArticles(count: number): ArticleInput[] {
  return Array.from({ length: count }, (_, i) => ({
    file: `a${i}.md`,
    slug: `article-${i}`,
    title: `Article ${i}`,
    excerpt: null,
    coverImage: null,
    status: 'published',
    publishedAt: '2025-01-01T00:00:00.000Z',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    author: { name: 'Bench', image: null },
    lastUpdatedBy: null,
    tags: [],
    seo: null,
    variants: [],
    content: `Body of article ${i}.`,
  }));
}

const referrerHosts = [
  'https://www.google.com/',
  'https://news.ycombinator.com/item?id=1',
  'https://t.co/x',
  'https://www.reddit.com/r/programming/',
  'https://duckduckgo.com/',
  'https://www.bing.com/',
  'https://lobste.rs/',
  'https://blog.example.com/other',
  'https://mastodon.social/@someone',
  'https://github.com/',
  'https://linkedin.com/',
];
const campaigns = Array.from({ length: 50 }, (_, i) => `campaign-${i}`);

/**
 * The columns from screen_width to events: referrers from a dozen sites (an eighth without), UTM
 * fields on 40% (50 campaigns), three screen widths, events on a fifth, as one SQL select list of
 * both dialects over the row number `g.i`. The strings are stored once, in page_view_strings, and
 * the list holds their ids.
 */
async function generatedFields(db: Db): Promise<string> {
  const ids = await stringIds(
    db.kysely,
    [
      'https://blog.example.com/post',
      'A post',
      ...referrerHosts,
      'newsletter',
      'twitter',
      'email',
      'social',
      ...campaigns,
    ],
    new StringIdCache(),
  );
  const id = (value: string) => String(ids.get(value));
  return `case g.i % 3 when 0 then 390 when 1 then 820 else 1440 end, 800,
  case g.i % 10 when 0 then 1 when 1 then 2 else 0 end,
  ${id('https://blog.example.com/post')}, ${id('A post')},
  case g.i % 12 ${referrerHosts.map((url, index) => `when ${index} then ${id(url)}`).join(' ')} else null end,
  case g.i % 5 when 0 then ${id('newsletter')} when 1 then ${id('twitter')} else null end,
  case g.i % 5 when 0 then ${id('email')} when 1 then ${id('social')} else null end,
  case when g.i % 5 < 2 then case g.i % 50 ${campaigns.map((name, index) => `when ${index} then ${id(name)}`).join(' ')} end else null end,
  case g.i % 10 when 0 then '[{"type":"click","timeOffset":1000}]'
    when 1 then '[{"type":"copy","timeOffset":2000},{"type":"share","timeOffset":3000}]' else null end`;
}

/**
 * The second of its day at which page view `i` was made, as SQL of both dialects over `i`: spread
 * over the day, and for today's (those with i % historyDays = 0) over the part of it that has
 * passed, so that none is stamped in the future and the realtime window holds its share.
 */
function secondOfDaySql(i: string, now: Date): string {
  const passed = Math.max(1, Math.floor((now.getTime() - Date.parse(now.toISOString().slice(0, 10))) / 1000));
  return `((${i} / ${historyDays}) * 7919 % case when ${i} % ${historyDays} = 0 then ${passed} else 86400 end)`;
}

/**
 * Page views spread evenly over the last year, articles skewed towards low numbers (the smaller of
 * two uniform draws), ~20,000 visitors a day, a quarter from the SDK, 90% with one of 20 countries,
 * uniform times (0–300 s) and depths, `bounced` sent for two thirds of them.
 */
export async function generatePageViews(
  db: Db,
  projectId: string,
  articleIds: string[],
  today: string,
  pageViewCount: number,
): Promise<void> {
  const chunk = 1_000_000;
  const fields = await generatedFields(db);
  for (let from = 0; from < pageViewCount; from += chunk) {
    const to = Math.min(pageViewCount, from + chunk) - 1;
    const started = performance.now();
    const second = secondOfDaySql(db.dialect === 'postgres' ? 'g.i' : 'i', new Date());
    const columns =
      sql.raw(`project_num, day, rid, article_num, created_ms, updated_ms, visitor, session, source,
      test, country, time_on_page_ms, scroll_depth_centi, exit_position, bounced, screen_width, screen_height,
      event_count, page_url_id, page_title_id, referrer_id, utm_source_id, utm_medium_id, utm_campaign_id, events`);
    const projectNum = sql`(select num from project_nums where project_id = ${projectId})`;
    if (db.dialect === 'postgres') {
      const nums = (
        await sql<{ num: number }>`select n.num from unnest(${articleIds}::text[]) with ordinality as a(id, o)
          join article_nums as n on n.article_id = a.id order by a.o`.execute(db.kysely)
      ).rows.map((row) => Number(row.num));
      await sql`insert into page_view_rows (${columns})
        select ${projectNum}, g.day::date, md5(g.i::text || 'rid')::uuid,
          (${nums}::int[])[1 + least(floor(random() * ${nums.length}), floor(random() * ${nums.length}))::int],
          (${sql.raw(second)}) * 1000, 30000, md5('v' || floor(random() * 20000)::int)::uuid, md5('s' || g.i)::uuid,
          case when g.i % 4 = 0 then 1 else 0 end, 0,
          case when g.i % 10 = 0 then null else substr(${countries}, 1 + 2 * floor(random() * 20)::int, 2) end,
          floor(random() * 300000)::int, floor(random() * 10001)::int, floor(random() * 101),
          case when g.i % 3 = 0 then null else floor(random() * 2)::int end, ${sql.raw(fields)}
        from (select i, to_char(${today}::date - (i % ${historyDays})::int, 'YYYY-MM-DD') as day
          from generate_series(${from}::bigint, ${to}::bigint) as i) as g`.execute(db.kysely);
    } else {
      await sql`with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to}),
        g(i, day, article) as materialized (select i, date(${today}, '-' || (i % ${historyDays}) || ' days'),
          min(abs(random()) % ${articleIds.length}, abs(random()) % ${articleIds.length}) from n)
        insert into page_view_rows (${columns})
        select ${projectNum}, day, randomblob(16), article_nums.num, (${sql.raw(second)}) * 1000, 30000,
          cast(printf('%016d', abs(random()) % 20000) as blob), randomblob(16),
          case when i % 4 = 0 then 1 else 0 end, 0,
          case when i % 10 = 0 then null else substr(${countries}, 1 + 2 * (abs(random()) % 20), 2) end,
          abs(random()) % 300000, abs(random()) % 10001, abs(random()) % 101,
          case when i % 3 = 0 then null else abs(random()) % 2 end, ${sql.raw(fields.replaceAll('g.i', 'i'))}
        from g join bench_articles on bench_articles.n = g.article
          join article_nums on article_nums.article_id = bench_articles.id`.execute(db.kysely);
    }
    const rate = Math.round((to - from + 1) / ((performance.now() - started) / 1000));
    process.stdout.write(`  generated ${to + 1} page views (${rate} rows/s)\n`);
  }
}

/** A new project of `articles` articles and `pageViews` page views up to `today`, in a migrated `db`. */
export async function seedAnalytics(
  db: Db,
  options: { pageViews: number; articles: number; today: string },
): Promise<{ projectId: string; slug: string }> {
  const slug = `bench-${Date.now()}`;
  const project = await createProject(db, { name: 'Bench', slug, storageLimit: '10 GB' });
  await importContent(db, slug, { tags: [], articles: benchArticles(options.articles) });
  const ids = (
    await db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', project.id)
      .orderBy('slug')
      .execute()
  ).map((row) => row.id);
  if (db.dialect === 'sqlite') {
    // Numbers the articles for the generator's join (PostgreSQL takes them as an array).
    await sql`create temp table bench_articles (n integer primary key, id text)`.execute(db.kysely);
    for (const [n, id] of ids.entries())
      await sql`insert into bench_articles values (${n}, ${id})`.execute(db.kysely);
  }
  await generatePageViews(db, project.id, ids, options.today, options.pageViews);
  return { projectId: project.id, slug };
}
