// The one-statement check every process makes when it opens the database (schemaReady in connect.ts): true
// for a schema this build can use as it is, false on anything the detailed path must name. A check that
// always said false would pass every other test (the detailed path answers the same), only slower.

import pgLib from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/loadConfig';
import { openPgPool, schemaReady } from '../../../server/store/postgres/connect';
import { PgDagDefinitions } from '../../../server/store/postgres/pgDagDefinitions';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();

async function ready(schema: string, url?: string): Promise<boolean> {
  const client = new pgLib.Client({ connectionString: url ?? pg().cluster.url });
  await client.connect();
  try {
    return await schemaReady(client, schema);
  } finally {
    await client.end();
  }
}

describe('schemaReady: the check of the usual start', () => {
  it('is true for a schema migrated to this build, and false for a schema that does not exist', async () => {
    await pg().migrate('ready_ok');
    expect(await ready('ready_ok')).toBe(true);
    expect(await ready('ready_absent')).toBe(false);
  });

  it('is false when a table is gone, when a newer breaking migration was applied, and for a read-only user', async () => {
    await pg().migrate('ready_bad');
    const q = (sql: string) => pg().pool.query(sql);
    await q('alter table ready_bad.queue_items rename to queue_items_gone');
    expect(await ready('ready_bad')).toBe(false);
    await q('alter table ready_bad.queue_items_gone rename to queue_items');
    expect(await ready('ready_bad')).toBe(true);

    await q(
      `insert into ready_bad.schema_migrations (version, name, checksum, breaking, applied_by) values (999, 'future', 'x', true, 'test')`,
    );
    expect(await ready('ready_bad')).toBe(false);
    await q('delete from ready_bad.schema_migrations where version = 999');

    await q('create role ready_ro login');
    await q('grant usage on schema ready_bad to ready_ro');
    await q('grant select on all tables in schema ready_bad to ready_ro');
    const ro = new URL(pg().cluster.url);
    ro.username = 'ready_ro';
    expect(await ready('ready_bad', ro.toString())).toBe(false);
  });

  it('is false for a user that may use the schema but holds no privilege on one of its tables', async () => {
    await pg().migrate('ready_priv');
    const q = (sql: string) => pg().pool.query(sql);
    await q('create role ready_partial login');
    await q('grant usage on schema ready_priv to ready_partial');
    await q('grant select, insert, update, delete on all tables in schema ready_priv to ready_partial');
    await q('revoke all on ready_priv.queue_items from ready_partial');
    const partial = new URL(pg().cluster.url);
    partial.username = 'ready_partial';
    expect(await ready('ready_priv', partial.toString())).toBe(false);
    await q('grant select, insert, update, delete on ready_priv.queue_items to ready_partial');
    expect(await ready('ready_priv', partial.toString())).toBe(true);
  });
});

describe('openPgPool: what the usual start reads with its check', () => {
  it("answers the installation ID and the DAGs' revision with the check, and none after the detailed path", async () => {
    await pg().migrate('ready_reads');
    const q = (sql: string) => pg().pool.query(sql);
    await q('update ready_reads.dag_revision set revision = 41 where id = 1');
    const id = (await q('select installation_id from ready_reads.installation')).rows[0]
      .installation_id as string;
    const env = {
      NODE_ENV: 'test' as const,
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_STORAGE_BACKEND: 'postgres',
    };
    const open = (schema: string, autoMigrate = false) =>
      openPgPool(
        loadConfig({
          env: { ...env, DAGU_POSTGRES_SCHEMA: schema, DAGU_POSTGRES_AUTO_MIGRATE: String(autoMigrate) },
        }),
        { by: 'test' },
      );
    const opened = await open('ready_reads');
    try {
      expect(opened.opening).toEqual({ installationId: id, dagRevision: '41' });
      // The first revision asked is the one read at the opening; the next is read again.
      const dags = new PgDagDefinitions(opened.pool, 'ready_reads', opened.opening!.dagRevision);
      await q('update ready_reads.dag_revision set revision = 42 where id = 1');
      expect(await dags.revision()).toBe('41');
      expect(await dags.revision()).toBe('42');
    } finally {
      await opened.pool.end();
    }
    // A schema made by this start took the detailed path: nothing was read with a check.
    const made = await open('ready_reads_new', true);
    try {
      expect(made.opening).toBeUndefined();
    } finally {
      await made.pool.end();
    }
  });
});
