// The state.* actions on storage.backend: postgres, on real `bin/dagu` runs and a throwaway PostgreSQL: what
// one run writes the next reads and compares against, the entries are rows of the database, and nothing of
// them is on the data directory. The same runs on a file home keep them under the data directory.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/loadConfig';
import { systemClock, systemTimers } from '../../../server/core/clock';
import type { ControlPlane } from '../../../server/store/controlPlane';
import { pgControlPlane } from '../../../server/store/postgres/pgControlPlane';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { dagu, tempHome, type TempHome } from '../harness';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
const homes: TempHome[] = [];
const planes: ControlPlane[] = [];

afterEach(async () => {
  await Promise.all(planes.splice(0).map((p) => p.close()));
  for (const h of homes.splice(0)) h.cleanup();
});

const DAG = `steps:
  - id: bump
    action: state.set
    with:
      key: counters/runs
      value: \${N}
      expected_version: \${V}
  - id: read
    depends: bump
    action: state.get
    with: { key: counters/runs, required: true }
`;

/** Starts the DAG once, setting the value N where the entry is at version V. */
function bump(h: TempHome, n: number, v: number) {
  return dagu(['start', 'counter', '--', `N=${n}`, `V=${v}`], h.env);
}

describe('state actions across runs', () => {
  it('on postgres: each run compares and sets in the database; a stale version fails; no file is written', async () => {
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: `state_${process.pid}`,
      DAGU_SKIP_EXAMPLES: 'true',
    });
    homes.push(h);
    h.writeDag('counter', `params: [N, V]\n${DAG}`);
    expect((await bump(h, 1, 0)).code).toBe(0);
    expect((await bump(h, 2, 1)).code).toBe(0);
    const stale = await bump(h, 3, 1);
    expect(stale.code).toBe(1);
    const cp = await pgControlPlane(loadConfig({ env: h.env }), new RecordingLogger(), systemClock, {
      by: 'test',
      timers: systemTimers,
    });
    planes.push(cp);
    const entry = await cp.state.get({ scope: 'dag', namespace: 'counter', key: 'counters/runs' });
    expect(entry).toMatchObject({ value: '"2"', version: 2 });
    expect(entry!.updated_by).toMatchObject({ dag_name: 'counter', step_name: 'bump' });
    expect(existsSync(path.join(h.home, 'data', 'state'))).toBe(false);
  });

  it('on files: the entries are kept under the data directory from one run to the next', async () => {
    const h = tempHome({ DAGU_SKIP_EXAMPLES: 'true' });
    homes.push(h);
    h.writeDag('counter', `params: [N, V]\n${DAG}`);
    expect((await bump(h, 1, 0)).code).toBe(0);
    expect((await bump(h, 2, 0)).code).toBe(1);
    expect((await bump(h, 2, 1)).code).toBe(0);
    const hex = (t: string) => Buffer.from(t).toString('hex');
    const file = path.join(h.home, 'data', 'state', 'dag', hex('counter'), `${hex('counters/runs')}.json`);
    expect(existsSync(file)).toBe(true);
  });
});
