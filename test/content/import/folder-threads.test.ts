// A large Folio folder is checked in two threads, every other chunk of files in the second one:
// the source, its warnings and its problems are those of a check in one thread, in the same order.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { StreamedSource } from '../../../src/content/import/digest.ts';
import { openContentSource } from '../../../src/content/import/read-source.ts';
import { ImportValidationError, type ReadOptions } from '../../../src/content/import/records.ts';
import { makeContentFolder, removeContentFolders } from '../../helpers.ts';

after(removeContentFolders);

const name = (i: number) => `post-${String(i).padStart(3, '0')}`;

/** 250 posts: three chunks of files, the middle one checked by the second thread. */
function posts(special: Record<number, string> = {}): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: 250 }, (_, i) => [
      `${name(i)}.md`,
      special[i] ??
        `---\ntitle: Post ${i}\npublishedAt: 2026-01-0${(i % 9) + 1}\ntags: [Tag ${i % 5}, Shared]\n---\nBody of *post* ${i}.\n`,
    ]),
  );
}

async function opened(folder: string, options: ReadOptions): Promise<StreamedSource> {
  const source = await openContentSource(folder, options);
  assert.ok('reread' in source);
  return source;
}

async function articlesOf(source: StreamedSource) {
  const articles = [];
  for await (const item of source.reread(() => true)) articles.push(item);
  return articles;
}

test('folder checked in two threads: the same digests, warnings and articles as in one', async () => {
  const withWarnings = (i: number) => `---\ntitle: Post ${i}\ncolour: red\n---\nBody ${i}.\n`;
  const folder = await makeContentFolder(posts({ 130: withWarnings(130), 220: withWarnings(220) }));
  const one = await opened(folder, { threads: false });
  const two = await opened(folder, { threads: true });
  assert.equal(two.articles.length, 250);
  assert.deepEqual(two.articles, one.articles);
  assert.deepEqual(two.warnings, one.warnings);
  assert.deepEqual(
    two.warnings?.map((warning) => warning.file),
    ['post-130.md', 'post-220.md'],
  );
  assert.deepEqual(await articlesOf(two), await articlesOf(one));
  one.close?.();
  two.close?.();
});

test('folder checked in two threads: the same problems, lines and order as in one (duplicates across threads, strict)', async () => {
  const folder = await makeContentFolder(
    posts({
      120: `---\ntitle: Post 120\nslug: ${name(10)}\n---\nBody.\n`,
      150: `---\ntitle: [unclosed\n---\nBody.\n`,
      160: `---\ntitle: Post 160\ncolour: red\n---\nBody.\n`,
    }),
  );
  const problems = async (options: ReadOptions) => {
    const error = await openContentSource(folder, options).then(
      () => assert.fail('the folder is refused'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ImportValidationError);
    return error.problems;
  };
  for (const strict of [false, true]) {
    const inTwo = await problems({ threads: true, strict });
    assert.deepEqual(inTwo, await problems({ threads: false, strict }));
    assert.deepEqual(
      inTwo.map((problem) => `${problem.file}:${problem.line}`),
      ['post-010.md:1', 'post-120.md:3', 'post-150.md:2', ...(strict ? ['post-160.md:3'] : [])],
    );
  }
});

for (const threads of [false, true]) {
  test(`folder checked in ${threads ? 'two threads' : 'one thread'}: each file read is reported, 1 … total in order, and timers run meanwhile`, async () => {
    const folder = await makeContentFolder(posts());
    const reported: number[] = [];
    let turns = 0;
    let turnsAtFirst = 0;
    let turnsAtLast = 0;
    const timer = setInterval(() => turns++, 0);
    const source = await opened(folder, {
      threads,
      onProgress: (done, total) => {
        assert.equal(total, 250);
        reported.push(done);
        if (done === 1) turnsAtFirst = turns;
        if (done === total) turnsAtLast = turns;
      },
    });
    clearInterval(timer);
    assert.deepEqual(
      reported,
      Array.from({ length: 250 }, (_, i) => i + 1),
    );
    // A progress bar redraws on a timer: the files are read synchronously, but not all in one turn.
    assert.ok(turnsAtLast > turnsAtFirst, 'timers ran while the folder was checked');
    source.close?.();
  });
}
