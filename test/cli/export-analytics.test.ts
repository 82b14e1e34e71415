// `folio export --analytics`: raw page views as NDJSON, by day range, without any IP.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  importArticles,
  type TestDatabase,
} from '../helpers.ts';
import { daysAgo, writePageViews } from '../analytics/support.ts';
import { runCli, tempDir } from './support.ts';

for (const dialect of configuredDialects()) {
  let database: TestDatabase;
  after(async () => database?.drop());

  test(`export --analytics [${dialect}]: one JSON object a line per page view of the day range, oldest first`, async () => {
    database = await createTestDatabase(dialect);
    const { project } = await createTestProject(database.db);
    const other = await createTestProject(database.db);
    await importArticles(database.db, project, [articleInput({ slug: 'hello' })]);
    await importArticles(database.db, other.project, [articleInput({ slug: 'hello' })]);
    const ids = await writePageViews(database.db, project, [
      { slug: 'hello', at: daysAgo(5), timeOnPage: 12.5, scrollDepth: 40, country: 'DE' },
      { slug: 'hello', at: daysAgo(2) },
      { slug: 'hello', at: daysAgo(2, '13:00:00.000') },
      { slug: 'hello', at: daysAgo(0, '00:00:01.000') },
    ]);
    await writePageViews(database.db, other.project, [{ slug: 'hello', at: daysAgo(2) }]);

    const all = join(tempDir(), 'all.ndjson');
    const result = await runCli(
      database.url,
      'export',
      '--analytics',
      '--project',
      project.slug,
      all,
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).pageViews, 4);
    const text = readFileSync(all, 'utf8');
    assert.ok(text.endsWith('\n'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => line.id),
      ids,
    );
    assert.equal(lines[0].slug, 'hello');
    assert.equal(lines[0].day, daysAgo(5).toISOString().slice(0, 10));
    assert.equal(lines[0].timeOnPage, 12.5);
    assert.equal(lines[0].scrollDepth, 40);
    assert.equal(lines[0].country, 'DE');
    assert.deepEqual(lines[0].events, []);
    for (const line of lines)
      assert.ok(!Object.keys(line).some((key) => /ip/i.test(key)), Object.keys(line).join());

    const range = join(tempDir(), 'range.ndjson');
    const day = daysAgo(2).toISOString().slice(0, 10);
    const ranged = await runCli(
      database.url,
      'export',
      '--analytics',
      '--project',
      project.slug,
      '--from',
      day,
      '--to',
      day,
      range,
    );
    assert.equal(ranged.code, 0, ranged.stderr);
    const rangedIds = readFileSync(range, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    assert.deepEqual(rangedIds, ids.slice(1, 3));
  });

  test(`export --analytics [${dialect}]: an existing file, a bad day or --from without --analytics is refused in one line`, async () => {
    const { project } = await createTestProject(database.db);
    const existing = join(tempDir(), 'taken.ndjson');
    writeFileSync(existing, 'kept');
    const taken = await runCli(database.url, 'export', '--analytics', '--project', project.slug, existing);
    assert.notEqual(taken.code, 0);
    assert.match(taken.stderr, /^folio: .*exists.*\n$/);
    assert.equal(readFileSync(existing, 'utf8'), 'kept');
    const badDay = await runCli(
      database.url,
      'export',
      '--analytics',
      '--project',
      project.slug,
      '--from',
      '2026-13-01',
      join(tempDir(), 'a'),
    );
    assert.notEqual(badDay.code, 0);
    assert.match(badDay.stderr, /^folio: --from must be a UTC day.*\n$/);
    const noFlag = await runCli(
      database.url,
      'export',
      '--project',
      project.slug,
      '--from',
      '2026-01-01',
      join(tempDir(), 'b'),
    );
    assert.notEqual(noFlag.code, 0);
    assert.match(noFlag.stderr, /^folio: --from and --to go with --analytics\n$/);
  });
}
