// The first start of a new installation: a `demo` project loaded from examples/content and a
// secret key for it, so that a new user has something to read at once. Never when a project exists.
import { fileURLToPath } from 'node:url';
import { importContent } from '../content/import.ts';
import { readContentSource } from '../content/import/read-source.ts';
import type { Db } from '../db/database.ts';
import { countProjects } from './queries.ts';
import { createApiKey, createProject } from './service.ts';

export const demoContentPath = fileURLToPath(new URL('../../examples/content', import.meta.url));

export async function createDemoProjectIfEmpty(db: Db, siteUrl: string): Promise<{ key: string } | null> {
  if ((await countProjects(db.kysely)) > 0) return null;
  const source = await readContentSource(demoContentPath);
  try {
    await createProject(db, {
      name: 'Folio Field Notes',
      slug: 'demo',
      description:
        'Notes from the team that builds Folio: engineering, writing and analytics without cookies.',
      siteUrl,
    });
  } catch {
    // Another instance started at the same moment and created it.
    return null;
  }
  await importContent(db, 'demo', source);
  const { key } = await createApiKey(db, 'demo', { kind: 'secret', name: 'demo key' });
  return { key };
}
