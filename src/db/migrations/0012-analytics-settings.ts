// Settings of the running service that other processes must follow, recorded in the database:
// a server records its ANALYTICS_RETENTION_DAYS at start, so that `folio analytics rebuild` (another
// process, with an environment of its own) rebuilds only the days whose raw page views the server
// still keeps, rather than trusting a setting of its own.
import { type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.ts';

export function analyticsSettings(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('analytics_settings')
        .addColumn('name', 'text', (col) => col.primaryKey())
        .addColumn('value', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('analytics_settings').execute();
    },
  };
}
