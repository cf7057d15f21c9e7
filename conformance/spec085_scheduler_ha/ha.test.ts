// Conformance of `dagu scheduler` with the scheduler HA spec (seed 000, section "Conformance"): one test per
// sentence, on real processes of one installation, with T=3s and R=500ms, on both storage backends (files
// under one temp DAGU_HOME; a schema of one PostgreSQL cluster per file). How long a handover took is read
// from the time stamp of the new holder's own log record, never from when the test noticed it.

import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../server/store/types';
import { BACKENDS, useBackend } from '../../tests/integration/backends';
import { dagu, eventually, waitForLog, type LogRecord } from '../../tests/integration/harness';
import {
  Cluster,
  EVENT_DEADLINE_MS,
  exitCode,
  I_MS,
  R_MS,
  sleep,
  T_MS,
  TIMER_SLACK_MS,
  type Instance,
} from './cluster';

let cluster: Cluster;
afterEach(async (ctx) => {
  // A failure on CI is only explicable with the runs and what each instance logged.
  if (ctx.task.result?.state === 'fail' && cluster) {
    const all = await runs('tick').catch(() => []);
    console.log(`runs of tick:\n${all.map((r) => JSON.stringify(r)).join('\n')}`);
    for (const i of cluster.instances) console.log(`output of ${i.name}:\n${i.service.output()}`);
  }
  await cluster?.stopAll();
});

async function runs(dag: string): Promise<RunSummary[]> {
  const cp = await cluster.plane();
  return (await cp.runs.listRuns({ dag, limit: 500 })).items;
}

async function statusOf(runId: string) {
  const r = await dagu(['status', '--json', runId], cluster.home.env);
  return JSON.parse(r.stdout) as {
    status: string;
    dispatched_by?: string | null;
    schedule_time: string | null;
  };
}

/** The instance's takeover of a stale lock, as it logged it (its clock is this host's, like ours). */
function takeoverOf(i: Instance): Promise<LogRecord> {
  return waitForLog(i.service, /^Took over the scheduler lock from a failed instance$/, EVENT_DEADLINE_MS);
}

/** Every slot of an every-2s schedule between two times, as ms. */
function slotsBetween(fromMs: number, toMs: number, everyMs = 2000): number[] {
  const out: number[] = [];
  for (let t = Math.ceil(fromMs / everyMs) * everyMs; t <= toMs; t += everyMs) out.push(t);
  return out;
}

describe.each(BACKENDS)('on the %s backend', (name) => {
  const backend = useBackend(name);

  describe('spec085 scheduler HA: roles and takeover', () => {
    it('one of two schedulers is active and stays so past the stale threshold; /health reports both roles', async () => {
      cluster = new Cluster(backend);
      const a = await cluster.start('a');
      const active = await cluster.active();
      const b = await cluster.start('b');
      await eventually(async () => (await b.health()).body?.role === 'standby');
      const standby = active === a ? b : a;
      await sleep(2 * T_MS);
      expect(await cluster.active(1000)).toBe(active);
      expect(await active.health()).toEqual({ code: 200, body: { status: 'healthy', role: 'active' } });
      expect(await standby.health()).toEqual({ code: 200, body: { status: 'healthy', role: 'standby' } });
      expect((await standby.health('?role=active')).code).toBe(503);
      expect((await active.health('?role=active')).code).toBe(200);
      expect(standby.service.output()).not.toMatch(/Took over the scheduler lock/);
    });

    it('three schedulers: exactly one is active', async () => {
      cluster = new Cluster(backend);
      const all = [await cluster.start('a'), await cluster.start('b'), await cluster.start('c')];
      await cluster.active();
      await sleep(T_MS + R_MS);
      const roles = await Promise.all(all.map(async (i) => (await i.health()).body?.role));
      expect(roles.filter((r) => r === 'active')).toHaveLength(1);
      expect(roles.filter((r) => r === 'standby')).toHaveLength(2);
    });

    it('a standby takes over within T + 2R after the active is killed, and logs the takeover', async () => {
      cluster = new Cluster(backend);
      const a = await cluster.start('a');
      await cluster.active();
      const b = await cluster.start('b');
      await eventually(async () => (await b.health()).body?.role === 'standby');
      const killedAt = Date.now();
      a.service.child.kill('SIGKILL');
      const took = (await takeoverOf(b)).timeMs - killedAt;
      expect(took).toBeLessThanOrEqual(T_MS + 2 * R_MS + TIMER_SLACK_MS);
      expect(took).toBeGreaterThanOrEqual(T_MS - I_MS); // it waited for the lock to go stale
      await cluster.active(EVENT_DEADLINE_MS, [b]);
      // The failover history records it, with the gap measured from the failed holder's last renewal.
      const { events } = await cluster.plane();
      const acquired = await eventually(async () => {
        const list = await events.list({ types: ['scheduler.lock.acquired'] });
        return list.find((e) => e.data.how === 'stale');
      });
      expect(acquired.data.gap_ms as number).toBeGreaterThanOrEqual(T_MS - I_MS);
      expect(acquired.data.gap_ms as number).toBeLessThanOrEqual(took + I_MS + 500);
      expect(acquired.data.previous_instance).toMatch(new RegExp(`-${a.service.child.pid}-`));
    });

    it('a clean stop hands over without waiting for staleness', async () => {
      cluster = new Cluster(backend);
      const a = await cluster.start('a');
      await cluster.active();
      const b = await cluster.start('b');
      await eventually(async () => (await b.health()).body?.role === 'standby');
      const stoppedAt = Date.now();
      a.service.child.kill('SIGTERM');
      const acquired = await waitForLog(
        b.service,
        /^Acquired the released scheduler lock$/,
        EVENT_DEADLINE_MS,
      );
      // Well before the lock could have gone stale.
      expect(acquired.timeMs - stoppedAt).toBeLessThan(T_MS - I_MS);
      await cluster.active(EVENT_DEADLINE_MS, [b]);
      expect(await exitCode(a, EVENT_DEADLINE_MS)).toBe(0);
      expect(b.service.output()).not.toMatch(/Took over the scheduler lock from a failed instance/);
    });
  });

  describe('spec085 scheduler HA: losing the lock', () => {
    it('ends dagu scheduler with a failure', async () => {
      cluster = new Cluster(backend);
      const a = await cluster.start('a');
      await cluster.active();
      await cluster.stealLock();
      const code = await exitCode(a, I_MS + EVENT_DEADLINE_MS);
      expect(code).not.toBe(0);
      expect(a.service.output()).toMatch(/Stopped being the active scheduler/);
    });

    it('ends dagu start-all with a failure, web server included', async () => {
      cluster = new Cluster(backend);
      const { freePort } = await import('../../tests/integration/harness');
      const webPort = await freePort();
      const a = await cluster.start('a', { command: ['start-all', '--port', String(webPort)] });
      await cluster.active(20_000);
      await eventually(async () => (await fetch(`http://127.0.0.1:${webPort}/livez`)).ok, 20_000);
      await cluster.stealLock();
      expect(await exitCode(a, I_MS + EVENT_DEADLINE_MS)).not.toBe(0);
      await expect(fetch(`http://127.0.0.1:${webPort}/livez`)).rejects.toThrow();
    });
  });

  describe('spec085 scheduler HA: slots around a failover', () => {
    const EVERY_2S =
      'schedule: "*/2 * * * * *"\noverlap_policy: all\nsteps:\n  - name: s\n    command: "true"\n';

    it('a slot that passes with no active scheduler runs once after a later takeover', async () => {
      cluster = new Cluster(backend);
      cluster.home.writeDag('tick', EVERY_2S);
      const a = await cluster.start('a');
      await cluster.active();
      await eventually(async () => (await runs('tick')).some((r) => r.status === 'succeeded'));
      a.service.child.kill('SIGKILL');
      const killedAt = Date.now();
      // Nobody is active for a while: slots pass unscheduled. Then a standby starts and takes over.
      await sleep(2 * T_MS);
      const b = await cluster.start('b');
      const tookOverAt = (await takeoverOf(b)).timeMs;
      await cluster.active(EVENT_DEADLINE_MS, [b]);
      const gap = slotsBetween(killedAt + 500, tookOverAt - T_MS);
      expect(gap.length).toBeGreaterThan(0);
      const bySlot = await eventually(async () => {
        const all = await runs('tick');
        const m = new Map<number, RunSummary[]>();
        for (const r of all)
          m.set(Date.parse(r.schedule_time!), [...(m.get(Date.parse(r.schedule_time!)) ?? []), r]);
        return gap.every((s) => m.get(s)?.[0]?.status === 'succeeded') ? m : null;
      }, 30_000);
      for (const s of gap) {
        expect(bySlot.get(s)).toHaveLength(1);
        expect(bySlot.get(s)![0].trigger_type).toBe('catchup');
      }
    });

    it('a slot runs once when its scheduler is killed as it comes due', async () => {
      cluster = new Cluster(backend);
      cluster.home.writeDag('tick', EVERY_2S);
      const a = await cluster.start('a');
      await cluster.active();
      const b = await cluster.start('b');
      await eventually(async () => (await b.health()).body?.role === 'standby');
      // Kill the active a few milliseconds after a slot comes due.
      const nextSlot = Math.ceil((Date.now() + 300) / 2000) * 2000;
      await sleep(nextSlot - Date.now() + 5);
      a.service.child.kill('SIGKILL');
      await cluster.active(EVENT_DEADLINE_MS, [b]);
      const run = await eventually(async () => {
        const forSlot = (await runs('tick')).filter((r) => Date.parse(r.schedule_time!) === nextSlot);
        return forSlot.length === 1 && ['succeeded', 'failed'].includes(forSlot[0].status) ? forSlot : null;
      }, 20_000).catch(async (e) => {
        console.log(
          'DEBUG nextSlot',
          new Date(nextSlot).toISOString(),
          JSON.stringify(await runs('tick'), null, 1),
        );
        console.log('A OUT', a.service.output());
        console.log('B OUT', b.service.output());
        throw e;
      });
      expect(run).toHaveLength(1);
      expect(run[0].status).toBe('succeeded');
    });

    it('a scheduler stalled past the stale threshold exits with a failure on resume; the slot it missed runs once on the new active', async () => {
      cluster = new Cluster(backend);
      cluster.home.writeDag('tick', EVERY_2S);
      const a = await cluster.start('a');
      await cluster.active();
      const b = await cluster.start('b');
      await eventually(async () => (await b.health()).body?.role === 'standby');
      a.service.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      const tookOverAt = (await takeoverOf(b)).timeMs;
      await cluster.active(EVENT_DEADLINE_MS, [b]);
      // a stays stopped a while past the takeover, then resumes and finds its lock gone.
      await sleep(2000);
      a.service.child.kill('SIGCONT');
      expect(await exitCode(a, EVENT_DEADLINE_MS)).not.toBe(0);
      expect(a.service.output()).toMatch(/Stopped being the active scheduler/);
      // The slots that came due while it was stalled and before the takeover run once, on the new active.
      const missed = slotsBetween(stoppedAt + 500, tookOverAt - 100);
      expect(missed.length).toBeGreaterThan(0);
      const all = await eventually(async () => {
        const r = await runs('tick');
        return missed.every((s) =>
          r.some((x) => Date.parse(x.schedule_time!) === s && x.status === 'succeeded'),
        )
          ? r
          : null;
      }, 30_000);
      const aTag = `-${a.service.child.pid}-`;
      for (const s of missed) expect(all.filter((x) => Date.parse(x.schedule_time!) === s)).toHaveLength(1);
      // No slot ran twice, and nothing was dispatched by the stalled instance after it stopped.
      const counts = new Map<string, number>();
      for (const r of all) counts.set(r.schedule_time!, (counts.get(r.schedule_time!) ?? 0) + 1);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      for (const r of all.filter((x) => Date.parse(x.created_at) > stoppedAt)) {
        expect((await statusOf(r.run_id)).dispatched_by ?? '').not.toContain(aTag);
      }
    });
  });

  describe('spec085 scheduler HA: runs in progress', () => {
    it('a queued run finishes after the scheduler that started it stops', async () => {
      cluster = new Cluster(backend);
      cluster.home.writeDag('long', 'steps:\n  - name: s\n    command: sleep 2\n');
      expect((await dagu(['enqueue', '--run-id', 'outlives', 'long'], cluster.home.env)).code).toBe(0);
      const a = await cluster.start('a');
      await eventually(async () => (await runs('long')).find((r) => r.status === 'running'));
      a.service.child.kill('SIGTERM');
      expect(await exitCode(a, EVENT_DEADLINE_MS)).toBe(0);
      const done = await eventually(
        async () => (await runs('long')).find((r) => r.status === 'succeeded'),
        EVENT_DEADLINE_MS,
      );
      expect(done.run_id).toBe('outlives');
    });

    it('with signal_handling.enable_propagation a stopping scheduler stops the runs it started', async () => {
      cluster = new Cluster(backend);
      cluster.home.writeDag(
        'prop',
        'signal_handling:\n  enable_propagation: true\nsteps:\n  - name: s\n    command: sleep 30\n',
      );
      expect((await dagu(['enqueue', '--run-id', 'propagated', 'prop'], cluster.home.env)).code).toBe(0);
      const a = await cluster.start('a');
      await eventually(async () => (await runs('prop')).find((r) => r.status === 'running'));
      a.service.child.kill('SIGTERM');
      const ended = await eventually(
        async () => (await runs('prop')).find((r) => r.status === 'aborted'),
        EVENT_DEADLINE_MS,
      );
      expect(ended.run_id).toBe('propagated');
    });
  });
});
