// DAG definitions on a real PostgreSQL: the store contract, and what the database form adds: the version
// check holds between hosts (separate pools), every write wakes the mirrors at commit, and the database
// itself refuses a row whose version is not its text's hash.

import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemTimers } from '../../../server/core/clock';
import { describeDagDefinitionsContract } from '../../../server/store/dagDefinitions.contract';
import { dagVersion } from '../../../server/store/dagFiles';
import { PgDagDefinitions } from '../../../server/store/postgres/pgDagDefinitions';
import { WakeupListener } from '../../../server/store/postgres/pgWakeups';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'dagu_dagdefs_test';
const cluster = usePostgres({ schema: SCHEMA });
let pool: pg.Pool;
beforeAll(() => {
  pool = cluster().pool;
});

async function empty(): Promise<void> {
  await pool.query(`truncate ${SCHEMA}.dags`);
}

describeDagDefinitionsContract(
  'PgDagDefinitions',
  async () => {
    await empty();
    return { store: new PgDagDefinitions(pool, SCHEMA) };
  },
  { recordsWriter: true },
);

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PgDagDefinitions between hosts', () => {
  const A = 'steps:\n  - name: a\n    run: echo a\n';

  it('lets one of two hosts that loaded the same version save, and shows the other what won', async () => {
    await empty();
    const hostPools = [0, 1].map(() => new pg.Pool({ connectionString: cluster().cluster.url, max: 4 }));
    try {
      const [one, two] = hostPools.map((p) => new PgDagDefinitions(p, SCHEMA));
      await one.put('etl', A);
      const base = (await two.get('etl'))!.version;
      const texts = Array.from({ length: 8 }, (_, i) => `${A}# host edit ${i}\n`);
      const results = await Promise.all(
        texts.map((t, i) =>
          (i % 2 === 0 ? one : two).put('etl', t, { expectedVersion: base, by: `host${i % 2}` }),
        ),
      );
      const winners = texts.filter((_, i) => results[i].ok);
      expect(winners).toHaveLength(1);
      for (const r of results) {
        if (!r.ok) expect(r).toMatchObject({ reason: 'conflict', current: { yaml: winners[0] } });
      }
      expect((await one.get('etl'))?.yaml).toBe(winners[0]);
    } finally {
      await Promise.all(hostPools.map((p) => p.end()));
    }
  });

  it('wakes listeners on the dagu_dags channel at each commit, naming the DAG', async () => {
    await empty();
    const heard: string[] = [];
    const listener = new WakeupListener({
      connection: cluster().cluster.url,
      channels: ['dagu_dags'],
      onNotify: (_channel, payload) => heard.push(payload),
      onResync: () => undefined,
      timers: systemTimers,
      logger: new RecordingLogger(),
    });
    listener.start();
    try {
      await waitFor(() => listener.isListening());
      const store = new PgDagDefinitions(pool, SCHEMA);
      await store.put('etl', A);
      await store.put('etl', A); // unchanged: no wake-up
      await store.rename('etl', 'load');
      await store.delete('load');
      await waitFor(() => heard.length >= 3);
      expect(heard).toEqual(['etl', 'etl', 'load']);
    } finally {
      await listener.stop();
    }
  });

  it('refuses, in the database, a row whose version is not the hash of its text', async () => {
    await expect(
      pool.query(
        `insert into ${SCHEMA}.dags (name, yaml, version, file_name, updated_by) values ('x', $1, $2, 'x.yaml', 't')`,
        [A, dagVersion('something else')],
      ),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      pool.query(
        `insert into ${SCHEMA}.dags (name, yaml, version, file_name, updated_by) values ('x', $1, $2, 'y.yaml', 't')`,
        [A, dagVersion(A)],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });
});
