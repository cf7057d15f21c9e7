// A Dagu 2.x home used as it is (fixtures/dagu-home-2x, hand-made in the layout of Dagu 2.x's file backend:
// its scheduler state v4 and checkpoint, dispatch tasks, a claim, a lease and a worker heartbeat under
// data/distributed, a queue item, a work directory, and a dag-runs entry with its logs). `dagu coordinator`,
// a worker and `dagu scheduler` run our DAGs on it and leave every one of Dagu's files byte for byte.

import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useBackend } from './backends';
import { Cluster, selectorDag } from './distributedCluster';
import { filesUnder, startService, eventually } from './harness';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'dagu-home-2x');

/** The files Dagu wrote, read from the fixture (paths relative to a home). */
function daguFiles(): Map<string, string> {
  return filesUnder(FIXTURE, ['data', 'logs']);
}

// Dagu 2.x's home is a data directory: this test is of the file backend only.
const files = useBackend('file');
let c: Cluster;
beforeEach(async () => {
  c = await Cluster.create(files);
  cpSync(FIXTURE, c.h.home, { recursive: true });
});
afterEach(async () => {
  await c.cleanup();
});

describe('a Dagu 2.x home', () => {
  it('coordinator, worker and scheduler run our DAGs and leave every Dagu file as it was', async () => {
    const before = daguFiles();
    expect(before.size).toBeGreaterThan(10);
    c.h.writeDag('remote', selectorDag({ zone: 'a' }, 'echo "on a worker"'));
    c.h.writeDag('tick', 'schedule: "*/2 * * * * *"\nsteps:\n  - name: s\n    command: echo tick\n');

    await c.startCoordinator();
    await c.startWorker('w1', { zone: 'a' });
    const scheduler = startService(['scheduler'], c.env);
    try {
      // A DAG sent to a worker through the coordinator: its task goes through data/cluster, not Dagu's dirs.
      const r = await c.dispatch('remote', 'remote1');
      expect(r.code, r.stderr).toBe(0);
      const remote = await c.waitRun('remote1', (s) => s.status === 'succeeded', 60_000);
      expect(readFileSync(path.join(c.logDir, remote.steps[0].stdout!), 'utf8')).toContain('on a worker');

      // A scheduled DAG run by the scheduler, which records its ticks beside Dagu's state.json.
      const tickState = path.join(c.dataDir, 'scheduler', 'tick-state.json');
      await eventually(
        async () => {
          const page = await (await c.plane()).runs.listRuns({ dag: 'tick', limit: 50 });
          return page.items.some((x) => x.status === 'succeeded') && existsSync(tickState);
        },
        60_000,
        250,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nscheduler output:\n${scheduler.output()}\n${c.outputs()}`);
      });
      expect(JSON.parse(readFileSync(tickState, 'utf8'))).toMatchObject({ version: 1 });
      // Dagu's own queued run and dispatch tasks are not ours: nothing of hello ran.
      expect((await (await c.plane()).runs.listRuns({ dag: 'hello', limit: 50 })).items).toEqual([]);
    } finally {
      expect(await scheduler.stop()).toBe(0);
    }

    // Dagu's state file was neither mistaken for a damaged one of ours nor read as worker records.
    const output = `${scheduler.output()}\n${c.outputs()}`;
    expect(output).not.toContain('Scheduler state file is unreadable');
    expect(output).not.toMatch(/Skipping a corrupt (worker record|dispatch task file)/);
    for (const [rel, text] of before) {
      expect(readFileSync(path.join(c.h.home, rel), 'utf8'), rel).toBe(text);
    }
    // Nothing of ours was added to Dagu's directories.
    for (const dir of ['pending', 'claims', 'workers', 'leases']) {
      const ours = readdirSync(path.join(c.dataDir, 'distributed', dir));
      const daguOnly = [...before.keys()].filter((k) => k.startsWith(`data/distributed/${dir}/`));
      expect(ours.length, dir).toBe(daguOnly.length);
    }
  });
});
