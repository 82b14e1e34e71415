// An Eleventy site laid out like the base blog (test/content/fixtures/real-blogs/eleventy), read the
// way Eleventy publishes it: compared with the fixture's expected.json by the shared harness. Two
// posts are dated by the file system and Git (`date: Last Modified`, `date: git Created`): the file's
// modification time is pinned, and the first commit of the other is asked of Git as Eleventy does.
import { execFile } from 'node:child_process';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describeFixture, type Expected } from './harness.ts';

const run = promisify(execFile);

/** The author date of the commit that added the file, or null outside a Git work tree. */
async function gitCreated(root: string, file: string): Promise<string | null> {
  const out = await run('git', ['log', '--diff-filter=A', '--follow', '-1', '--format=%aI', '--', file], {
    cwd: root,
  }).catch(() => ({ stdout: '' }));
  const text = out.stdout.trim();
  return text === '' ? null : new Date(text).toISOString();
}

async function pinFileTimes(expected: Expected, root: string): Promise<void> {
  const times = (expected as unknown as { fileTimes: Record<string, { mtime?: string }> }).fileTimes;
  for (const [file, time] of Object.entries(times)) {
    if (time.mtime !== undefined) {
      const at = new Date(time.mtime);
      await utimes(join(root, ...file.split('/')), at, at);
    }
  }
  const greenhouse = expected.files.find((entry) => entry.file === 'content/blog/greenhouse.md');
  const created = await gitCreated(root, 'content/blog/greenhouse.md');
  if (greenhouse !== undefined && created !== null) {
    greenhouse['publishedAt'] = created;
    greenhouse['updatedAt'] = created;
  } else if (greenhouse !== undefined) {
    // Outside a Git work tree Eleventy dates it by the build: only its being a date is checked.
    delete greenhouse['publishedAt'];
    delete greenhouse['updatedAt'];
  }
}

describeFixture('eleventy', { prepare: pinFileTimes });
