import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { nameStatements, statementName } from '../../../server/store/postgres/namedStatements';
import { usePostgres } from './pgTestCluster';

const cluster = usePostgres();

/** The prepared statements of the connection `client` is on. */
async function prepared(client: pg.ClientBase): Promise<Array<{ name: string; statement: string }>> {
  const r = await client.query<{ name: string; statement: string }>(
    'select name, statement from pg_prepared_statements order by name',
  );
  return r.rows;
}

describe('named statements', () => {
  it('prepares a parameterized statement once per connection and reuses it', async () => {
    const pool = new pg.Pool({ connectionString: cluster().cluster.url, max: 1 });
    nameStatements(pool);
    try {
      const text = 'select $1::int + 1 as n';
      expect((await pool.query<{ n: number }>(text, [1])).rows[0].n).toBe(2);
      expect((await pool.query<{ n: number }>(text, [41])).rows[0].n).toBe(42);
      const client = await pool.connect();
      try {
        // A transaction's statements on a checked-out client are named too.
        await client.query('begin');
        expect((await client.query<{ n: number }>(text, [2])).rows[0].n).toBe(3);
        await client.query('commit');
        const rows = await prepared(client);
        expect(rows).toEqual([{ name: statementName(text), statement: text }]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('leaves statements without parameters unnamed, and a plain pool prepares nothing', async () => {
    const named = new pg.Pool({ connectionString: cluster().cluster.url, max: 1 });
    nameStatements(named);
    const plain = new pg.Pool({ connectionString: cluster().cluster.url, max: 1 });
    try {
      await named.query('select 1');
      await plain.query('select $1::int as n', [5]);
      for (const pool of [named, plain]) {
        const client = await pool.connect();
        try {
          expect(await prepared(client)).toEqual([]);
        } finally {
          client.release();
        }
      }
    } finally {
      await named.end();
      await plain.end();
    }
  });

  it('gives each text its own name and a text the same name every time', () => {
    const a = statementName('select $1::text as a');
    const b = statementName('select $1::text as b');
    expect(a).not.toBeNull();
    expect(b).not.toBe(a);
    expect(statementName('select $1::text as a')).toBe(a);
  });
});

describe('the bound on named texts', () => {
  it('stops naming new texts once MAX_NAMED_TEXTS have a name', async () => {
    vi.resetModules();
    const fresh = await import('../../../server/store/postgres/namedStatements');
    for (let i = 0; i < fresh.MAX_NAMED_TEXTS; i++) expect(fresh.statementName(`select ${i}`)).not.toBeNull();
    expect(fresh.statementName('select $1::int as over')).toBeNull();
    // Those named before keep their names.
    expect(fresh.statementName('select 0')).toBe('dagu_1');
  });
});
