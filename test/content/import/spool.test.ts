// The spool keeps a source's checked articles on disk until they are written: read back in order,
// exactly as appended, whatever their size or characters.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { ArticleSpool } from '../../../src/content/import/spool.ts';
import { articleInput } from '../../helpers.ts';

const spoolFiles = () => readdirSync(tmpdir()).filter((name) => name.startsWith('folio-import-'));

test('spool: articles come back in order, equal to those appended, across blocks and multi-byte characters', () => {
  const spool = new ArticleSpool();
  // Lines of every length around the block size (1 MiB), with characters of 1 to 4 bytes, line
  // breaks and the separators JSON leaves unescaped.
  const articles = [
    ...Array.from({ length: 300 }, (_, i) =>
      articleInput({
        slug: `small-${i}`,
        content: `é读🦋 ${i}\nline\u2028two\u2029 "quoted" \\ ${'x'.repeat(i * 37)}`,
      }),
    ),
    articleInput({ slug: 'large', content: '读'.repeat(700_000) }),
    articleInput({ slug: 'after-large', content: '🦋'.repeat(300_000) }),
  ];
  for (const article of articles) spool.append(article);
  assert.equal(spool.count, articles.length);
  const all = [...spool.read(() => true)];
  assert.deepEqual(
    all.map((item) => item.index),
    articles.map((_, i) => i),
  );
  assert.deepEqual(
    all.map((item) => item.article),
    articles,
  );
  // Only those wanted, and read again as many times as asked.
  const odd = [...spool.read((index) => index % 2 === 1)];
  assert.deepEqual(
    odd.map((item) => item.article.slug),
    articles.filter((_, i) => i % 2 === 1).map((article) => article.slug),
  );
  spool.close();
});

test('spool: its file is gone from the temporary folder while it is open, and it cannot be read once closed', () => {
  const before = spoolFiles();
  const spool = new ArticleSpool();
  spool.append(articleInput({ slug: 'one' }));
  assert.deepEqual(spoolFiles(), before);
  assert.equal([...spool.read(() => true)].length, 1);
  spool.close();
  spool.close();
  assert.throws(() => [...spool.read(() => true)], /closed/);
});
