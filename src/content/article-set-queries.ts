// SQL of the article sets (article-sets.ts): changes applied chunk by chunk in the writer's
// transaction, the dictionary of tokens kept in step with them, and a rebuild of a project's sets
// from its articles (benches that insert articles directly).
import { sql } from 'kysely';
import type { DialectName } from '../db/database.ts';
import { valueList } from '../db/dialect-sql.ts';
import type { ArticleSetTable, Executor } from '../db/schema.ts';
import {
  applyToChunk,
  articleSetKeys,
  chunkBits,
  chunkSize,
  decodeChunk,
  emptyChunk,
  encodeChunk,
  fragmentSetKey,
  type OrdinalSet,
  type SetChanges,
  tokenOfSetKey,
} from './article-sets.ts';

/** Sets read or written per statement: well under both databases' limits on parameters. */
const keysPerStatement = 500;

/**
 * The fragments whose sets the project stores (fragmentSetKey): those with a member. A writer reads
 * them after taking the project's lock (its content version's row), so that a fragment stored
 * meanwhile is never missed by its changes.
 */
export async function projectFragments(executor: Executor, projectId: string): Promise<string[]> {
  // `f;` follows every `f:` key in the keys' byte order (collation "C" on PostgreSQL).
  const rows = await executor
    .selectFrom('article_sets')
    .select('set_key')
    .distinct()
    .where('project_id', '=', projectId)
    .where('set_key', '>', 'f:')
    .where('set_key', '<', 'f;')
    .execute();
  return rows.map((row) => row.set_key.slice(2));
}

/** Stores a fragment's set, all its chunks, as read from the word sets holding it. */
export async function insertFragmentSet(
  executor: Executor,
  projectId: string,
  fragment: string,
  set: OrdinalSet,
): Promise<void> {
  const rows: ArticleSetTable[] = [];
  for (const [chunk, words] of set.chunks) {
    const members = encodeChunk(words);
    if (members !== null)
      rows.push({
        project_id: projectId,
        set_key: fragmentSetKey(fragment),
        chunk,
        members: Buffer.from(members),
      });
  }
  for (let first = 0; first < rows.length; first += keysPerStatement)
    await executor
      .insertInto('article_sets')
      .values(rows.slice(first, first + keysPerStatement))
      .execute();
}

/**
 * The keys of the sets each of these articles is in, as stored, by article id (`fragments`: the
 * project's, from projectFragments).
 */
export async function storedSetKeys(
  executor: Executor,
  articleIds: string[],
  fragments: readonly string[] = [],
): Promise<Map<string, Set<string>>> {
  const keys = new Map<string, Set<string>>();
  for (let start = 0; start < articleIds.length; start += keysPerStatement) {
    const ids = articleIds.slice(start, start + keysPerStatement);
    const [articles, tags] = await Promise.all([
      executor
        .selectFrom('articles')
        .select(['id', 'status', 'search_text'])
        .where('id', 'in', ids)
        .execute(),
      executor
        .selectFrom('article_tags')
        .select(['article_id', 'tag_id'])
        .where('article_id', 'in', ids)
        .execute(),
    ]);
    const tagsOf = groupTags(tags.map((tag) => [tag.article_id, tag.tag_id]));
    for (const article of articles) {
      keys.set(
        article.id,
        articleSetKeys(
          { status: article.status, tagIds: tagsOf.get(article.id) ?? [], searchText: article.search_text },
          fragments,
        ),
      );
    }
  }
  return keys;
}

function groupTags<K>(pairs: Array<[K, string]>): Map<K, string[]> {
  const groups = new Map<K, string[]>();
  for (const [owner, tagId] of pairs) {
    const group = groups.get(owner);
    if (group) group.push(tagId);
    else groups.set(owner, [tagId]);
  }
  return groups;
}

/** Applies gathered changes to the stored sets and tokens, then clears them. */
export async function applySetChanges(
  executor: Executor,
  dialect: DialectName,
  projectId: string,
  changes: SetChanges,
): Promise<void> {
  const newTokens = new Set<string>();
  const emptiedTokens = new Set<string>();
  for (const [chunk, sets] of changes.chunks()) {
    const keys = [...sets.keys()];
    for (let start = 0; start < keys.length; start += keysPerStatement) {
      const batch = keys.slice(start, start + keysPerStatement);
      const { rows: stored } = await sql<{ value: string; members: Uint8Array | null }>`select k.value,
        (select s.members from article_sets as s where s.project_id = ${projectId} and s.set_key = k.value and s.chunk = ${chunk}) as members
        from ${valueList(dialect, batch)}`.execute(executor);
      const current = new Map(
        stored.flatMap((row) => (row.members === null ? [] : [[row.value, row.members]])),
      );
      const written: ArticleSetTable[] = [];
      const emptied: string[] = [];
      for (const key of batch) {
        const before = current.get(key);
        const words = before === undefined ? emptyChunk() : decodeChunk(before);
        applyToChunk(words, sets.get(key)!);
        const members = encodeChunk(words);
        const token = tokenOfSetKey(key);
        if (members !== null) {
          written.push({ project_id: projectId, set_key: key, chunk, members: Buffer.from(members) });
          if (before === undefined && token !== null) newTokens.add(token);
        } else if (before !== undefined) {
          emptied.push(key);
          if (token !== null) emptiedTokens.add(token);
        }
      }
      if (written.length > 0) {
        await executor
          .insertInto('article_sets')
          .values(written)
          .onConflict((conflict) =>
            conflict
              .columns(['project_id', 'set_key', 'chunk'])
              .doUpdateSet({ members: (eb) => eb.ref('excluded.members') }),
          )
          .execute();
      }
      if (emptied.length > 0) {
        await executor
          .deleteFrom('article_sets')
          .where('project_id', '=', projectId)
          .where('chunk', '=', chunk)
          .where('set_key', 'in', emptied)
          .execute();
      }
    }
  }
  await addTokens(executor, projectId, [...newTokens]);
  // A token leaves the dictionary with the last chunk of its set.
  const emptied = [...emptiedTokens];
  for (let start = 0; start < emptied.length; start += keysPerStatement) {
    await executor
      .deleteFrom('search_tokens')
      .where('search_tokens.project_id', '=', projectId)
      .where('search_tokens.token', 'in', emptied.slice(start, start + keysPerStatement))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('article_sets as s')
              .select(sql`1`.as('one'))
              .whereRef('s.project_id', '=', 'search_tokens.project_id')
              .where(sql<boolean>`s.set_key = 't:' || search_tokens.token`),
          ),
        ),
      )
      .execute();
  }
  changes.clear();
}

async function addTokens(executor: Executor, projectId: string, tokens: string[]): Promise<void> {
  for (let start = 0; start < tokens.length; start += keysPerStatement) {
    await executor
      .insertInto('search_tokens')
      .values(
        tokens.slice(start, start + keysPerStatement).map((token) => ({ project_id: projectId, token })),
      )
      .onConflict((conflict) => conflict.columns(['project_id', 'token']).doNothing())
      .execute();
  }
}

/**
 * Builds a project's sets and tokens again from its articles, a chunk of ordinals at a time (so
 * that memory stays bounded whatever the size of the project), its stored fragments' too. Run
 * inside a transaction.
 */
export async function rebuildArticleSets(executor: Executor, projectId: string): Promise<void> {
  const fragments = await projectFragments(executor, projectId);
  await executor.deleteFrom('article_sets').where('project_id', '=', projectId).execute();
  await executor.deleteFrom('search_tokens').where('project_id', '=', projectId).execute();
  // The chunks that hold an article, each found from the end of the last: ordinals may lie far
  // apart, and a chunk without articles has no sets.
  const firstOrdinalFrom = async (from: number) => {
    const { first } = await executor
      .selectFrom('articles')
      .select((eb) => eb.fn.min('ordinal').as('first'))
      .where('project_id', '=', projectId)
      .where('ordinal', '>=', from)
      .executeTakeFirstOrThrow();
    return first === null || first === undefined ? null : Number(first);
  };
  const tokens = new Set<string>();
  for (let next = await firstOrdinalFrom(0); next !== null;) {
    const chunk = next >>> chunkBits;
    const from = chunk << chunkBits;
    const to = from + chunkSize;
    const articles = await executor
      .selectFrom('articles')
      .select(['ordinal', 'status', 'search_text'])
      .where('project_id', '=', projectId)
      .where('ordinal', '>=', from)
      .where('ordinal', '<', to)
      .execute();
    const tags = await executor
      .selectFrom('article_tags')
      .innerJoin('articles', 'articles.id', 'article_tags.article_id')
      .select(['articles.ordinal', 'article_tags.tag_id'])
      .where('articles.project_id', '=', projectId)
      .where('articles.ordinal', '>=', from)
      .where('articles.ordinal', '<', to)
      .execute();
    const tagsOf = groupTags(tags.map((tag) => [tag.ordinal, tag.tag_id]));
    const sets = new Map<string, Uint32Array>();
    for (const article of articles) {
      const low = article.ordinal & (chunkSize - 1);
      const keys = articleSetKeys(
        {
          status: article.status,
          tagIds: tagsOf.get(article.ordinal) ?? [],
          searchText: article.search_text,
        },
        fragments,
      );
      for (const key of keys) {
        let words = sets.get(key);
        if (words === undefined) sets.set(key, (words = emptyChunk()));
        words[low >>> 5] |= 1 << (low & 31);
      }
    }
    const rows: ArticleSetTable[] = [];
    const added: string[] = [];
    for (const [key, words] of sets) {
      rows.push({ project_id: projectId, set_key: key, chunk, members: Buffer.from(encodeChunk(words)!) });
      const token = tokenOfSetKey(key);
      if (token !== null && !tokens.has(token)) {
        tokens.add(token);
        added.push(token);
      }
    }
    for (let first = 0; first < rows.length; first += keysPerStatement) {
      await executor
        .insertInto('article_sets')
        .values(rows.slice(first, first + keysPerStatement))
        .execute();
    }
    await addTokens(executor, projectId, added);
    next = await firstOrdinalFrom(to);
  }
}

/**
 * The project's content version, its row locked until the transaction ends as a writer locks it
 * (SQLite: the transaction holds the writer's lock already); undefined when a writer holds it now.
 */
export async function lockedContentVersion(
  executor: Executor,
  dialect: DialectName,
  projectId: string,
): Promise<number | undefined> {
  let query = executor.selectFrom('projects').select('content_version').where('id', '=', projectId);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : Number(row.content_version);
}
