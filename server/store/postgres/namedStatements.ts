// Names the statements of a pool's clients, so that PostgreSQL parses and plans each statement text once per
// connection rather than at every execution. node-postgres sends a statement with parameters through the
// extended protocol as an unnamed statement, which the server parses and plans again each time; for the
// stores' statements (common table expressions over several tables) that was a large part of the server's
// CPU per run. A named statement is prepared on its connection the first time and then only bound.
//
// Only parameterized statements of a bounded set of texts are named: the stores build their texts from the
// schema name and fixed SQL, so the set is small; should a text ever carry data, the set stops growing at
// MAX_NAMED_TEXTS and later texts go unnamed, so a connection never accumulates prepared statements without
// bound. A pooler in transaction mode that does not track prepared statements (PgBouncer before 1.21) cannot
// carry named statements: `storage.postgres.named_statements: false` turns them off.

import type pg from 'pg';

/** Distinct statement texts given a name in this process. */
export const MAX_NAMED_TEXTS = 512;

const names = new Map<string, string>();

/** The name of `text`'s prepared statement, or null once MAX_NAMED_TEXTS texts have one. */
export function statementName(text: string): string | null {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (names.size >= MAX_NAMED_TEXTS) return null;
  // Numbered in order of first use: unique within the process, whose connections alone use them.
  const name = `dagu_${names.size + 1}`;
  names.set(text, name);
  return name;
}

type QueryFn = (...args: unknown[]) => unknown;

/** Makes every client `pool` connects send its parameterized statements as named statements. */
export function nameStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => nameClientStatements(client));
}

/** The same for one client (a dedicated connection outside a pool). */
export function nameClientStatements(client: pg.ClientBase): void {
  const query = client.query.bind(client) as QueryFn;
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values)) {
      const name = statementName(text);
      if (name !== null) return query({ name, text, values }, ...args.slice(2));
    }
    return query(...args);
  };
}
