// Generated articles for the benches that need a realistic blog: every field the export writes
// (tags, authors, SEO, variants, dates, paths, aliases, visibility and tiers) in varied
// combinations, with titles and texts that YAML would read as something else when written bare.
import type { ArticleInput, TagInput } from '../src/content/import/records.ts';
const words =
  'reading analytics sqlite postgres cache latency index markdown feed sitemap tag search privacy scroll funnel écrire 读者 naïve café'.split(
    ' ',
  );
/** Titles and texts that YAML reads as something else when written bare. */
const awkward = [
  'yes',
  'null',
  '~',
  '123',
  '- not a list',
  '@at',
  '*star',
  '# hash',
  'a: colon',
  'it\'s "quoted"',
  'émoji 🦋 and 中文',
  'true',
  '0x1F',
  '2024-01-15',
  '[brackets]',
  '{braces}',
  '!important',
  '%percent',
  '| pipe',
  '> greater',
];
const tagCount = 150;
const authorsPool = ['Ada Lovelace', 'Grace Hopper', 'Linus', 'Margaret Hamilton', 'Édouard Lucas', '李雷'];

function pick<T>(list: readonly T[], i: number): T {
  return list[i % list.length];
}

function paragraph(i: number, length: number): string {
  return Array.from({ length }, (_, w) => words[(i * 7 + w * 13) % words.length]).join(' ');
}

/** One article's Markdown: headings, lists, code, links, tables, and the edge cases of blank lines. */
function body(i: number): string {
  const parts = [
    `# ${pick(awkward, i)} ${i}`,
    paragraph(i, 40 + (i % 200)),
    `- item ${i}\n- [a link](https://example.com/${i})\n  - nested *emphasis*`,
    '```ts\nconst x = ' + i + ';\n  // indented\n```',
    `| a | b |\n|---|---|\n| ${i} | ${pick(words, i)} |`,
    `![image ${i}](https://images.example.com/${i}.png "title")`,
    `> quoted ${pick(awkward, i + 3)}`,
    paragraph(i + 1, 20 + (i % 60)),
  ];
  const text = parts.slice(0, 2 + (i % parts.length)).join('\n\n');
  switch (i % 7) {
    case 0:
      return `\n${text}\n`; // starts with a blank line
    case 1:
      return `${text}`; // no final newline
    case 2:
      return `${text}  \n\n\n`; // trailing spaces and blank lines
    case 3:
      return `---\nlooks like a fence\n+++\n${text}\n`;
    case 4:
      return '';
    default:
      return `${text}\n`;
  }
}

function iso(base: number, hours: number): string {
  return new Date(base + hours * 3_600_000).toISOString();
}

/** `count` articles that use every field the export writes, in varied combinations. */
export function variedArticles(count: number): { articles: ArticleInput[]; tags: TagInput[] } {
  const tags: TagInput[] = Array.from({ length: tagCount }, (_, t) => ({
    name: t % 10 === 0 ? `${pick(awkward, t)} tag ${t}` : `Topic ${t}`,
    color: t % 3 === 0 ? null : `#${(0x100000 + t * 4321).toString(16).slice(-6)}`,
    icon: t % 4 === 0 ? null : pick(['star', 'book', 'bolt', 'leaf'], t),
  }));
  // Tags that only articles name, and one that no article names.
  tags.push({ name: 'Unused, with comma', color: '#abcdef', icon: null });
  const start = Date.UTC(2019, 0, 1);
  const future = Date.now() + 90 * 86_400_000;
  const articles: ArticleInput[] = [];
  for (let i = 0; i < count; i++) {
    const jekyll = i % 97 === 0;
    const slug = jekyll ? `2024-01-${String((i % 28) + 1).padStart(2, '0')}-post-${i}` : `article-${i}`;
    const status = (['published', 'published', 'published', 'draft', 'archived'] as const)[i % 5];
    const scheduled = status === 'published' && i % 53 === 0;
    const created = iso(start, i * 7);
    const author = pick(authorsPool, i);
    articles.push({
      file: `${slug}.md`,
      slug,
      title: i % 11 === 0 ? pick(awkward, i) : `Article ${i}: ${pick(words, i)} in practice`,
      excerpt: i % 4 === 0 ? null : i % 4 === 1 ? `${pick(awkward, i)}\nsecond line ${i}` : `Summary ${i}.`,
      coverImage: i % 3 === 0 ? null : `https://images.example.com/cover-${i}.jpg`,
      coverImageAlt: i % 3 === 1 ? `alt of ${pick(awkward, i)}` : null,
      status,
      publishedAt:
        status === 'draft'
          ? null
          : scheduled
            ? new Date(future + i * 1000).toISOString()
            : iso(start, i * 7 + 1),
      createdAt: created,
      updatedAt: iso(start, i * 7 + (i % 500)),
      author: { name: author, image: i % 2 ? null : `https://images.example.com/${i % 6}.png` },
      lastUpdatedBy: i % 5 === 0 ? { name: pick(authorsPool, i + 1), image: null } : null,
      tags:
        i % 9 === 0
          ? []
          : Array.from(new Set([tags[i % tagCount].name, tags[(i * 7) % tagCount].name])).concat(
              i % 13 === 0 ? [`Only named by articles ${i % 5}`] : [],
            ),
      seo:
        i % 3 === 0
          ? null
          : {
              metaTitle: i % 2 ? pick(awkward, i) : null,
              metaDescription: i % 5 ? `Description ${i}` : null,
              ogImage: i % 7 ? null : `https://images.example.com/og-${i}.png`,
              canonicalUrl: i % 11 ? null : `https://old.example.org/${slug}/`,
              keywords: i % 4 ? [pick(words, i), pick(awkward, i)] : [],
            },
      variants:
        i % 10 === 0
          ? [
              { key: 'short', title: pick(awkward, i), excerpt: null, content: `  indented\n\ttab ${i}\n` },
              { key: 'b-test', title: null, excerpt: 'x', content: '' },
            ]
          : [],
      content: body(i),
      path: i % 6 === 0 ? `/${2019 + (i % 7)}/posts/${slug}/` : null,
      section: i % 4 === 0 ? pick(['posts', 'notes', 'guides'], i) : null,
      aliases: i % 8 === 0 ? [`/old/${i}/`, `/p/${i}.html`] : [],
      guid: i % 5 === 0 ? `https://old.example.org/?p=${i}` : null,
      visibility: (['public', 'public', 'members', 'paid'] as const)[i % 4],
      tiers: i % 4 === 3 ? ['supporter', `tier ${i % 3}`] : [],
      authors:
        i % 12 === 0
          ? [
              {
                name: author,
                slug: `a-${i % 6}`,
                image: null,
                title: 'Editor',
                url: 'https://old.example.org/a/',
              },
              {
                name: 'Second Author',
                slug: 'second',
                image: 'https://images.example.com/s.png',
                title: null,
                url: null,
              },
            ]
          : undefined,
    });
  }
  return { articles, tags };
}
