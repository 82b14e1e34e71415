// Publishing beyond the CLI: key scopes and test keys, article versions and revisions, idempotent
// writes, the webhook outbox and its deliveries, draft previews, and a per-server signing secret.
// Existing secret keys keep what they could do (read and analytics); existing published articles
// count as announced, so that the first start sends no article.published for old posts.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function publishing(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') await db.transaction().execute((trx) => create(trx, dialect));
      else await create(db, dialect);
    },
  };
}

async function create(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  await keysAndViews(db, dialect);
  await articleVersions(db, key);
  await webhooks(db, key, dialect === 'postgres' ? 'bigint' : 'integer');
  await previews(db, key);
}

async function keysAndViews(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const keys = db.schema.alterTable('api_keys');
  // JSON array of `read`, `analytics`, `write`; public keys ignore it.
  await keys.addColumn('scopes', 'text', (col) => col.notNull().defaultTo('["read","analytics"]')).execute();
  // 1: a key made for tests (`keys create --test`): headless browsers count, views are marked.
  await keys.addColumn('test', 'integer', (col) => col.notNull().defaultTo(0)).execute();
  if (dialect === 'sqlite') {
    // Migration 0016's counter must move when a key's scopes or test flag change too.
    await sql`drop trigger api_keys_key_changes_update`.execute(db);
    await sql
      .raw(
        'create trigger api_keys_key_changes_update after update of key_hash, revoked_at, kind, rate_limit, ' +
          'allowed_origins, project_id, scopes, test on api_keys ' +
          'begin update key_changes set version = version + 1; end',
      )
      .execute(db);
  }

  // 1: a view tracked with a test key; counted nowhere unless asked for.
  await db.schema
    .alterTable('page_views')
    .addColumn('test', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

async function articleVersions(db: Kysely<any>, key: ReturnType<typeof sql>): Promise<void> {
  const articles = db.schema.alterTable('articles');
  // Grows by one with every change of the article (its ETag for writes).
  await articles.addColumn('version', 'integer', (col) => col.notNull().defaultTo(1)).execute();
  // The published_at for which article.published was last emitted; null: never. An article whose
  // publication time has come and differs from this is announced (once, whichever instance).
  await articles.addColumn('announced_published_at', 'text').execute();
  await db
    .updateTable('articles')
    .set({ announced_published_at: sql`published_at` })
    .where('status', '=', 'published')
    .where('published_at', '<=', new Date().toISOString())
    .execute();

  // How many revisions each article keeps (the oldest beyond are deleted).
  await db.schema
    .alterTable('projects')
    .addColumn('revisions_kept', 'integer', (col) => col.notNull().defaultTo(50))
    .execute();

  await db.schema
    .createTable('article_revisions')
    .addColumn('id', key, (col) => col.primaryKey())
    .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('article_id', key, (col) => col.notNull())
    // The version the article had when this copy of it was current.
    .addColumn('version', 'integer', (col) => col.notNull())
    // `api`, `import` or `cli`: what made the change that replaced this version.
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    // JSON: the article's writable fields as the write API takes them.
    .addColumn('snapshot', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('article_revisions_article')
    .on('article_revisions')
    .columns(['article_id', 'version'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('key_id', key, (col) => col.notNull())
    .addColumn('idempotency_key', key, (col) => col.notNull())
    // Hash of method, path and body: the same key with another request is refused.
    .addColumn('request_hash', 'text', (col) => col.notNull())
    .addColumn('status_code', 'integer', (col) => col.notNull())
    // JSON `{ headers, body }` of the first answer.
    .addColumn('answer', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['key_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
}

async function webhooks(
  db: Kysely<any>,
  key: ReturnType<typeof sql>,
  bigint: 'bigint' | 'integer',
): Promise<void> {
  // The outbox: one row per event, written in the transaction of the change it reports.
  await db.schema
    .createTable('outbox_events')
    .addColumn('id', key, (col) => col.primaryKey())
    .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    // JSON: the event's `data`.
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    // When its deliveries were made (one per matching webhook); null: not yet.
    .addColumn('dispatched_at', 'text')
    .execute();
  await sql`create index outbox_events_pending on outbox_events (created_at) where dispatched_at is null`.execute(
    db,
  );

  await db.schema
    .createTable('webhooks')
    .addColumn('id', key, (col) => col.primaryKey())
    .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    // `whsec_` and base64 of the signing key.
    .addColumn('secret', 'text', (col) => col.notNull())
    // JSON array of event types; empty: every event.
    .addColumn('events', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhooks_project').on('webhooks').column('project_id').execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', key, (col) => col.primaryKey())
    .addColumn('webhook_id', key, (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', key, (col) => col.notNull())
    .addColumn('project_id', key, (col) => col.notNull())
    // `pending`, `delivered` or `failed` (retries exhausted).
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('duration_ms', bigint)
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('webhook_deliveries_once', ['webhook_id', 'event_id'])
    .execute();
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute();
}

async function previews(db: Kysely<any>, key: ReturnType<typeof sql>): Promise<void> {
  await db.schema
    .createTable('previews')
    .addColumn('id', key, (col) => col.primaryKey())
    .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('article_id', key, (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('previews_article').on('previews').column('article_id').execute();

  // Secrets of the server itself, shared by every instance on the database (preview signing).
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', key, (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
}
