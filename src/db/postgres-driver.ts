// The pg driver, loaded by the first PostgreSQL connection rather than at start: an SQLite server,
// and each of its worker threads, never runs its code (16 modules, 1.4 MB of heap per thread).
import { createRequire } from 'node:module';
import type pg from 'pg';

let driver: typeof pg | null = null;

export function postgresDriver(): typeof pg {
  if (driver === null) {
    driver = createRequire(import.meta.url)('pg') as typeof pg;
    // int8 (counts, sums) arrives as text by default; every such value here fits in a double.
    driver.types.setTypeParser(driver.types.builtins.INT8, (value) => Number(value));
    driver.types.setTypeParser(driver.types.builtins.NUMERIC, (value) => Number(value));
    // Days and times are `YYYY-MM-DD` and `toISOString()` text everywhere in Folio, whatever their
    // column's type (page views store them as date and timestamptz).
    driver.types.setTypeParser(driver.types.builtins.DATE, (value) => value);
    const timestamp = driver.types.getTypeParser(driver.types.builtins.TIMESTAMPTZ);
    driver.types.setTypeParser(driver.types.builtins.TIMESTAMPTZ, (value) =>
      (timestamp(value) as Date).toISOString(),
    );
  }
  return driver;
}
