// Every real-blog fixture file's body through expandTemplates, checked against its expected.json: the
// stored content's must/mustNot strings that template expansion decides, and the template warnings with
// their file:line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemplateDialect } from '../../../../src/content/import/templates/expand.ts';
import { expandTemplates } from '../../../../src/content/import/templates/expand.ts';
import { contextFor, readBody, readExpected, templateWarnings } from './fixture-bodies.ts';

// Strings of the fixtures that other steps of the import decide, not template expansion: excerpt markers
// (the site readers cut them) and Markdown images resolved against the article URL (content/article-url.ts).
const decidedElsewhere = new Set([
  '<!--more-->',
  '<!-- truncate -->',
  '<!--cut-->',
  '](boats.jpg)',
  '](./packets.jpg)',
  'https://allotment.example.net/blog/seed-swap/packets.jpg',
  'https://lantern.example.io/blog/2024/04/22/offline-mode/queue.png',
]);

// .md files of these sites hold no template syntax the generator runs; .mdx files are MDX.
const mdxOnly = (file: string): TemplateDialect[] => (file.endsWith('.mdx') ? ['mdx'] : []);

const sites: Array<{ site: string; dialects: (file: string) => TemplateDialect[]; options?: object }> = [
  { site: 'hugo', dialects: () => ['hugo'], options: { youtubePrivacyEnhanced: true } },
  { site: 'jekyll', dialects: () => ['liquid'] },
  // eleventy.config.js: markdownTemplateEngine 'njk'.
  { site: 'eleventy', dialects: () => ['nunjucks'] },
  { site: 'astro', dialects: mdxOnly },
  { site: 'docusaurus', dialects: mdxOnly },
  { site: 'nextjs/blog-starter', dialects: mdxOnly },
];

for (const { site, dialects, options } of sites) {
  const expected = readExpected(site);
  const articles = expected.files.filter((entry) => ['post', 'draft', 'excluded'].includes(entry.kind));
  for (const entry of articles) {
    test(`${site} ${entry.file}: template syntax expanded as the generator renders it, with its warnings`, () => {
      const { body, firstBodyLine } = readBody(site, entry.file);
      const context = contextFor(site, entry, dialects(entry.file), firstBodyLine, { options });
      const { text, warnings } = expandTemplates(body, context);
      for (const wanted of entry.content?.mustContain ?? []) {
        if (!decidedElsewhere.has(wanted))
          assert.ok(text.includes(wanted), `missing ${JSON.stringify(wanted)} in\n${text}`);
      }
      for (const unwanted of entry.content?.mustNotContain ?? []) {
        if (!decidedElsewhere.has(unwanted))
          assert.ok(!text.includes(unwanted), `unexpected ${JSON.stringify(unwanted)} in\n${text}`);
      }
      const got = warnings.map((warning) => `${warning.kind} ${warning.file}:${warning.line}`).sort();
      assert.deepEqual(got, templateWarnings(entry));
    });
  }
}
