// Two hosts' mirrors of the DAG definitions on a real PostgreSQL, each with its own pool and directory: a
// write on one host is in its own directory when the write returns, and reaches the other host by its
// NOTIFY wake-up long before its poll would, or by the poll alone when it has no listener.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from '../../../server/core/clock';
import { DagMirror } from '../../../server/store/dagMirror';
import { MirroredDagDefinitions } from '../../../server/store/mirroredDagDefinitions';
import { PgDagDefinitions } from '../../../server/store/postgres/pgDagDefinitions';
import { WakeupListener } from '../../../server/store/postgres/pgWakeups';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'dagu_mirror_test';
const cluster = usePostgres({ schema: SCHEMA });

const A = 'steps:\n  - name: a\n    run: echo a\n';
const B = 'steps:\n  - name: b\n    run: echo b\n';

interface Host {
  dir: string;
  dags: MirroredDagDefinitions;
  mirror: DagMirror;
  stop(): Promise<void>;
}

const started: Host[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((h) => h.stop()));
  await cluster().pool.query(`truncate ${SCHEMA}.dags`);
});

/** A host: its own pool, mirror directory and (unless told not to) wake-up listener. */
async function startHost(opts: { pollMs: number; listen: boolean }): Promise<Host> {
  const root = mkdtempSync(path.join(tmpdir(), 'dagu-pg-mirror-'));
  const dir = path.join(root, 'dags');
  const pool = new pg.Pool({ connectionString: cluster().cluster.url, max: 3 });
  const logger = new RecordingLogger();
  const store = new PgDagDefinitions(pool, SCHEMA);
  const mirror = new DagMirror({
    store,
    dir,
    clock: systemClock,
    timers: systemTimers,
    logger,
    pollMs: opts.pollMs,
  });
  const listener = opts.listen
    ? new WakeupListener({
        connection: cluster().cluster.url,
        channels: ['dagu_dags'],
        onNotify: () => mirror.wake(),
        onResync: () => mirror.wake(),
        timers: systemTimers,
        logger,
      })
    : null;
  await mirror.start();
  listener?.start();
  if (listener) await waitFor(() => listener.isListening());
  const host: Host = {
    dir,
    mirror,
    dags: new MirroredDagDefinitions(store, mirror, logger),
    async stop() {
      await listener?.stop();
      await mirror.stop();
      await pool.end();
      rmSync(root, { recursive: true, force: true });
    },
  };
  started.push(host);
  return host;
}

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<number> {
  const from = Date.now();
  while (!check()) {
    if (Date.now() - from > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - from;
}

/** The DAG files of a mirror, without its hidden state file. */
function dagFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .sort();
}

function read(dir: string, file: string): string | null {
  try {
    return readFileSync(path.join(dir, file), 'utf8');
  } catch {
    return null;
  }
}

describe('DAG mirrors of two hosts on PostgreSQL', () => {
  it('has a write in the writer’s directory at once, and in the other host’s by its wake-up', async () => {
    // Polls far apart: only the wake-up can bring the change to the second host within the test.
    const one = await startHost({ pollMs: 600_000, listen: true });
    const two = await startHost({ pollMs: 600_000, listen: true });
    expect(await one.dags.put('etl', A, { expectedVersion: null, by: 'host-one' })).toMatchObject({
      ok: true,
    });
    expect(read(one.dir, 'etl.yaml')).toBe(A);
    await waitFor(() => read(two.dir, 'etl.yaml') === A);

    const version = (await two.dags.get('etl'))!.version;
    expect(await two.dags.put('etl', B, { expectedVersion: version })).toMatchObject({ outcome: 'updated' });
    await waitFor(() => read(one.dir, 'etl.yaml') === B);
    expect(await two.dags.rename('etl', 'load')).toMatchObject({ ok: true });
    await waitFor(() => dagFiles(one.dir).join() === 'load.yaml');
    expect(await one.dags.delete('load')).toEqual({ ok: true });
    await waitFor(() => dagFiles(two.dir).length === 0);
  });

  it('brings a change in by polling when the host does not listen', async () => {
    const writer = await startHost({ pollMs: 600_000, listen: false });
    const reader = await startHost({ pollMs: 200, listen: false });
    await writer.dags.put('etl', A);
    await waitFor(() => read(reader.dir, 'etl.yaml') === A);
  });

  it('starts a new host with every DAG already in its directory', async () => {
    const first = await startHost({ pollMs: 600_000, listen: false });
    for (const n of ['a', 'b', 'c']) await first.dags.put(n, A);
    await first.dags.put('d', B, { fileName: 'd.yml' });
    const late = await startHost({ pollMs: 600_000, listen: false });
    expect(dagFiles(late.dir)).toEqual(['a.yaml', 'b.yaml', 'c.yaml', 'd.yml']);
    expect(read(late.dir, 'd.yml')).toBe(B);
  });
});
