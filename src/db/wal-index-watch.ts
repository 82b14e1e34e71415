// Whether any connection, of any process, committed to a SQLite database in WAL mode since the last
// look: one read of the WAL-index header, the first bytes of the `-shm` file (SQLite's documented
// file format, "The WAL-Index Format"). Every commit rewrites that header (the WAL's last frame, its
// change counter, and its salts when the WAL starts over), and it holds two copies, written one after
// the other, which differ while a commit writes them. A look is a `pread` of 96 bytes from the page
// cache the connections map: about a microsecond, against 17 µs or more for a SQLite read, which
// also takes the file's locks and, after a commit, starts its connection's page cache over.
//
// The file stays while this process holds a connection open: SQLite deletes it only when the last
// connection to the database closes, which it knows by taking the database's exclusive lock, and a
// connection in WAL mode holds a shared lock on it while open.
import { closeSync, openSync, readSync } from 'node:fs';

/** The header's size: two copies of its 48 bytes. */
const headerBytes = 48;

export class WalIndexWatch {
  #fd: number | null;
  readonly #read = Buffer.alloc(2 * headerBytes);
  readonly #seen = Buffer.alloc(headerBytes);
  #seenValid = false;

  /** Watches the database at `path`, which a connection of this process has open in WAL mode. */
  constructor(path: string) {
    try {
      this.#fd = openSync(`${path}-shm`, 'r');
    } catch {
      // No WAL index to read (not in WAL mode, or a file SQLite keeps in memory): every look says
      // something may have committed.
      this.#fd = null;
    }
  }

  /**
   * Whether nothing was committed since the previous look (false at the first, and whenever the
   * header cannot be told). Whatever the caller reads after a look is as new as that look: a look
   * that says "nothing since" therefore vouches for what was read after the previous one.
   */
  unchanged(): boolean {
    if (this.#fd === null) return false;
    let bytes: number;
    try {
      bytes = readSync(this.#fd, this.#read, 0, this.#read.length, 0);
    } catch {
      bytes = 0;
    }
    const stable =
      bytes === this.#read.length &&
      this.#read.compare(this.#read, headerBytes, 2 * headerBytes, 0, headerBytes) === 0;
    if (!stable) {
      this.#seenValid = false;
      return false;
    }
    const unchanged = this.#seenValid && this.#read.compare(this.#seen, 0, headerBytes, 0, headerBytes) === 0;
    if (!unchanged) {
      this.#read.copy(this.#seen, 0, 0, headerBytes);
      this.#seenValid = true;
    }
    return unchanged;
  }

  /** The next look says something may have committed. */
  forget(): void {
    this.#seenValid = false;
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }
}
