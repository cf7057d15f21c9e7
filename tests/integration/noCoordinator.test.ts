// Runs for the workers when no coordinator runs (issue 13): a one-host install that never started one, and a
// coordinator killed while runs are held. Dispatches are refused with upstream's words, the console and
// `dagu status` say why a held run waits, and the active scheduler fails a hold when its wait runs out.
// On both storage backends.

import { afterEach, describe, expect, it } from 'vitest';
import { TERMINAL_RUN_STATES, type RunStatus } from '../../server/core/types';
import { BACKENDS, useBackend, type BackendUnderTest } from './backends';
import { Cluster, selectorDag } from './distributedCluster';
import { dagu, eventually, freePort, startService, waitForLog, type Service } from './harness';

let cluster: Cluster | null = null;
const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
  await cluster?.cleanup();
  cluster = null;
});

async function newCluster(backend: BackendUnderTest, env: Record<string, string> = {}): Promise<Cluster> {
  cluster = await Cluster.create(backend, env);
  return cluster;
}

function start(c: Cluster, args: string[]): Service {
  const s = startService(args, c.env);
  services.push(s);
  return s;
}

const ended = (s: RunStatus) => TERMINAL_RUN_STATES.includes(s.status);
const reasons = (s: RunStatus) => s.conditions.map((x) => `${x.type}=${x.status}/${x.reason}`);
const NO_COORDINATOR = ['Runnable=False/NoAvailableCoordinator', 'WorkerReady=False/NoAvailableCoordinator'];

/** The runs of `dag` in the installation, newest first. */
async function runsOf(c: Cluster, dag: string): Promise<RunStatus[]> {
  const page = await (await c.plane()).runs.listRuns({ dag, limit: 50 });
  const all = await Promise.all(page.items.map((r) => c.status(r.run_id)));
  return all.filter((s): s is RunStatus => s !== null);
}

describe.each(BACKENDS)('on the %s backend', (name) => {
  const backend = useBackend(name);

  describe('with no coordinator at all', () => {
    it('refuses start, a foreground start and enqueue of a DAG with a selector at once, recording nothing', async () => {
      const c = await newCluster(backend);
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo never'));
      c.h.writeDag('local', 'steps:\n  - name: s\n    command: echo here\n');

      for (const args of [
        ['start', '--detach', '--run-id', 'detached1', 'zb'],
        ['start', '--run-id', 'foreground1', 'zb'],
        ['enqueue', '--run-id', 'queued1', 'zb'],
      ]) {
        const r = await dagu(args, c.env);
        expect(r.code, `dagu ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
        expect(r.stderr).toBe('dagu: no coordinators available\n');
      }
      for (const runId of ['detached1', 'foreground1', 'queued1']) expect(await c.status(runId)).toBeNull();
      expect(await c.taskIds('pending')).toEqual([]);

      // A DAG that runs on this host does not need one.
      const local = await dagu(['start', '--run-id', 'local1', 'local'], c.env);
      expect(local.code, local.stderr).toBe(0);
      expect((await c.status('local1'))!.status).toBe('succeeded');
    });

    it("holds a scheduled slot, says why, and the scheduler fails it at its wait with the seed's text", async () => {
      const c = await newCluster(backend, { DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '3s' });
      c.h.writeDag('tick', `schedule: "*/4 * * * * *"\n${selectorDag({ zone: 'b' }, 'echo never')}`);
      const scheduler = start(c, ['scheduler']);

      const held = await eventually(async () => {
        const [first] = (await runsOf(c, 'tick')).filter((s) => s.trigger_type === 'scheduler');
        return first && first.status === 'queued' && (await c.taskOf(first.run_id)) ? first : null;
      }, 30_000);
      expect(reasons(held)).toEqual(NO_COORDINATOR);
      const shown = await dagu(['status', held.run_id], c.env);
      expect(shown.stdout).toContain('Runnable=False NoAvailableCoordinator: no coordinators available');

      const failed = await c.waitRun(held.run_id, ended, 20_000);
      expect(failed).toMatchObject({
        status: 'failed',
        error: 'no worker matched the selector {zone: b} within 3s',
        conditions: [],
      });
      // The scheduler writes the run's status first and removes the task after; it logs once both are done.
      const log = await waitForLog(scheduler, /^Failed a held run: its wait for a worker ran out$/);
      expect(await c.taskOf(held.run_id)).toBeNull();
      expect(log.fields).toMatchObject({ run_id: held.run_id, coordinator: 'none alive' });
      // Its hold began when the queue handed it over; the scheduler's check runs every 500 ms.
      const heldAt = Date.parse(held.conditions[0].checked_at);
      expect(log.timeMs - heldAt).toBeGreaterThanOrEqual(3000);
      expect(log.timeMs - heldAt).toBeLessThan(3000 + 500 + 2000);
      expect(scheduler.output()).toContain(
        'No coordinator is alive; the scheduler fails held runs whose wait runs out',
      );
    });
  });

  describe('with a coordinator that dies while runs are held', () => {
    it('status and the console say no coordinator is available, and the scheduler fails the holds at their wait', async () => {
      const c = await newCluster(backend, { DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '10s' });
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo never'));
      await c.startCoordinator();
      await c.startWorker('worker-a', { zone: 'a' });
      const scheduler = start(c, ['scheduler']);
      const webPort = await freePort();
      const web = start(c, ['server', '--port', String(webPort)]);
      const api = `http://127.0.0.1:${webPort}/api/v1`;
      const listQueue = async () => {
        const res = await fetch(`${api}/queue`, { signal: AbortSignal.timeout(5000) });
        return res.ok ? ((await res.json()) as { items: Array<{ run_id: string; reason: string }> }) : null;
      };
      // The console is up before anything is held, so that it is asked well within the holds' wait.
      await eventually(listQueue, 60_000, 250).catch((err: Error) => {
        throw new Error(`${err.message}\nserver output:\n${web.output()}`);
      });

      for (const runId of ['held1', 'held2']) {
        const r = await c.dispatch('zb', runId);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain(
          `Holding ${runId}: no healthy worker matches {zone: b}; waiting up to 10s`,
        );
      }
      expect(reasons((await c.status('held1'))!)).toEqual([
        'Runnable=False/NoMatchingWorker',
        'WorkerReady=False/NoMatchingWorker',
      ]);

      await c.killCoordinator();
      const killedAt = Date.now();

      // Within the coordinator's promise (coordinator.worker_stale_threshold, 2s here), everyone says so.
      const status = await eventually(async () => {
        const r = await dagu(['status', 'held1'], c.env);
        return r.stdout.includes('NoAvailableCoordinator') ? r.stdout : null;
      }, 20_000);
      expect(status).toContain('Runnable=False NoAvailableCoordinator: no coordinators available');
      expect(status).toContain('held1 (attempt 1): queued');
      const json = JSON.parse((await dagu(['status', '--json', 'held2'], c.env)).stdout) as RunStatus;
      expect(reasons(json)).toEqual(NO_COORDINATOR);
      // The record keeps what the dispatcher saw; only what is shown changed.
      expect(reasons((await c.status('held1'))!)).toEqual([
        'Runnable=False/NoMatchingWorker',
        'WorkerReady=False/NoMatchingWorker',
      ]);

      const queue = (await listQueue())!;
      expect(queue.items.map((w) => [w.run_id, w.reason])).toEqual([
        ['held1', 'NoAvailableCoordinator'],
        ['held2', 'NoAvailableCoordinator'],
      ]);
      const run = (await (await fetch(`${api}/runs/held1`)).json()) as RunStatus;
      expect(reasons(run)).toEqual(NO_COORDINATOR);

      // A new dispatch is refused now, and a run is not recorded for it.
      const refused = await c.dispatch('zb', 'late1');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe('dagu: no coordinators available\n');
      expect(await c.status('late1')).toBeNull();

      for (const runId of ['held1', 'held2']) {
        const failed = await c.waitRun(runId, ended, 30_000);
        expect(failed).toMatchObject({
          status: 'failed',
          error: 'no worker matched the selector {zone: b} within 10s',
        });
      }
      const logs = await eventually(() => {
        const found = scheduler.output().match(/"msg":"Failed a held run: its wait for a worker ran out"/g);
        return found && found.length === 2 ? found : null;
      });
      expect(logs).toHaveLength(2);
      // Each was logged once its task was removed too (after the run's status was written).
      for (const runId of ['held1', 'held2']) expect(await c.taskOf(runId)).toBeNull();
      expect(Date.now() - killedAt).toBeLessThan(30_000);

      // A retry of the failed run is refused the same way, its attempt left as it was.
      const retry = await dagu(['retry', '--detach', 'held1'], c.env);
      expect(retry.code).toBe(1);
      expect(retry.stderr).toBe('dagu: no coordinators available\n');
      expect((await c.status('held1'))!.attempt).toBe(1);
    });
  });
});
