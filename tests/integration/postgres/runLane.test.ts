// Run lanes on PostgreSQL: a queue's backlog runs in a lane that keeps its connections from run to run, and
// a DAG pushed while the lane lives is what its next run runs (the lane brings its DAGs in step before each).

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dagu, eventually, startService, tempHome, type Service } from '../harness';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups) c();
});

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

describe('run lanes on PostgreSQL', () => {
  it('runs a backlog in a lane, and a DAG pushed meanwhile is what the next run runs', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'dagu-lane-out-'));
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: 'lanes',
      DAGU_SKIP_EXAMPLES: 'true',
      DAGU_RUN_PRESTART: 'false',
    });
    let sched: Service | null = null;
    cleanups.push(() => {
      void sched?.stop('SIGKILL');
      h.cleanup();
      rmSync(out, { recursive: true, force: true });
    });
    writeFileSync(
      path.join(h.home, 'config.yaml'),
      'queues:\n  config:\n    - name: q\n      max_concurrency: 1\n',
    );
    const dag = (version: string) =>
      `queue: q\nsteps:\n  - name: s\n    command: sleep 0.3; echo ${version} > ${out}/$DAG_RUN_ID\n`;
    h.writeDag('d', dag('v1'));
    const ids = Array.from({ length: 12 }, (_, i) => `d-${String(i).padStart(2, '0')}`);
    for (const id of ids) {
      const r = await dagu(['enqueue', '--run-id', id, 'd'], h.env);
      expect(r.code, r.stderr).toBe(0);
    }
    sched = startService(['scheduler'], h.env);
    const pidOf = async (id: string) => {
      const r = await pg().pool.query<{ pid: string | null }>(
        "select status->>'pid' as pid from lanes.run_attempts where run_id = $1",
        [id],
      );
      return r.rows[0]?.pid ? Number(r.rows[0].pid) : null;
    };
    // A run in a lane, then the new version pushed while the queue still has a backlog.
    const lane = await eventually(async () => {
      for (const id of ids) {
        const pid = await pidOf(id);
        if (pid !== null && commandLine(pid).includes('__run-lane')) return pid;
      }
      return null;
    }, 30_000);
    h.writeDag('d', dag('v2'));
    const pushedAt = readdirSync(out).length;
    await eventually(async () => {
      const r = await pg().pool.query<{ n: string }>(
        "select count(*) as n from lanes.runs where run_id like 'd-%' and status = 'succeeded'",
      );
      return Number(r.rows[0].n) === ids.length;
    }, 60_000);
    expect(pushedAt).toBeLessThan(ids.length - 2);
    // The last runs ran the pushed version, in the lane that ran the first version.
    const versions = ids.map((id) => readFileSync(path.join(out, id), 'utf8').trim());
    expect(versions.at(-1)).toBe('v2');
    const laneRuns = [];
    for (const [i, id] of ids.entries()) if ((await pidOf(id)) === lane) laneRuns.push(versions[i]);
    expect(laneRuns).toContain('v1');
    expect(laneRuns).toContain('v2');
    expect(sched.output()).not.toMatch(/run lane exited unexpectedly/);
  }, 120_000);
});
