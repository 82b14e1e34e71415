import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { importContent } from '../src/content/import.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
const url = process.argv[2];
const db = openDatabase(url);
await migrateToLatest(db);
await createProject(db, { name: 'Bench', slug: 'bench', storageLimit: '10 GB' });
const words =
  'reading analytics sqlite postgres cache latency index markdown feed sitemap tag search privacy scroll funnel'.split(
    ' ',
  );
const articles = [];
for (let i = 0; i < 10000; i++) {
  const paragraph = Array.from({ length: 120 }, (_, w) => words[(i * 7 + w * 13) % words.length]).join(' ');
  const date = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
  articles.push({
    file: `a${i}.md`,
    slug: `article-${i}`,
    title: `Article ${i}`,
    excerpt: `Summary ${i}.`,
    coverImage: null,
    status: i % 10 === 0 ? 'draft' : 'published',
    publishedAt: i % 10 === 0 ? null : date,
    createdAt: date,
    updatedAt: date,
    author: { name: 'A', image: null },
    lastUpdatedBy: null,
    tags: [`tag-${i % 20}`],
    seo: null,
    variants: [],
    content: `# H\n\n${paragraph}\n`,
  });
}
await importContent(db, 'bench', { tags: [], articles } as any);
const { key } = await createApiKey(db, 'bench', { kind: 'secret', rateLimit: 1_000_000 });
console.log(key);
await db.close();
