// The demo's import as a task of SQLite's task thread (db/task-worker.ts): the import pipeline,
// its parsers and what they leave behind stay in that thread, which ends once idle, instead of
// in the server's heap for good.
import { importContent } from './content/import.ts';
import { readContentSource } from './content/import/read-source.ts';
import type { DbTask } from './db/database.ts';

const importDemo: DbTask<{ project: string; path: string }, null> = async (db, { project, path }) => {
  await importContent(db, project, await readContentSource(path));
  return null;
};

export default importDemo;
