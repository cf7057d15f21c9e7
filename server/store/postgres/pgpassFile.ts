// The password of a PostgreSQL password file (`~/.pgpass`, or the file PGPASSFILE names), found the way
// libpq finds it, by the `pgpass` module that node-postgres itself uses. node-postgres still reads the file
// on its own when a connection has no password, but calls that deprecated and prints a warning at every
// connection (into each command's output and every run's log); the way it supports is a password function,
// which is this. It is asked only when the server wants a password and none was configured, and the module is
// loaded then: most set-ups never load it. In the bundled CLI, `pgpass` is a part of its own
// (scripts/bundle-parts/pgpass.cjs).

import { createRequire } from 'node:module';

/** What pgpass matches a line of the file against. */
export interface PgpassTarget {
  host?: string | null;
  port?: number | string | null;
  database?: string | null;
  user?: string | null;
}

type PgpassLookup = (target: PgpassTarget, done: (password: string | undefined) => void) => void;

let lookup: PgpassLookup | null = null;

function pgpass(): PgpassLookup {
  if (lookup === null) {
    lookup = (
      typeof require === 'function'
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
          require('pgpass')
        : createRequire(import.meta.url)('pgpass')
    ) as PgpassLookup;
  }
  return lookup;
}

/**
 * The password file's password for this connection, or undefined when the file is absent, unreadable, open
 * to the group or others (pgpass warns, as psql does), has no matching line, or PGPASSWORD is set.
 */
export function pgpassPassword(target: PgpassTarget): Promise<string | undefined> {
  return new Promise((resolve) => pgpass()(target, resolve));
}
