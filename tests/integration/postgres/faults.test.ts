// The PostgreSQL-specific faults of the scheduler lock, on real `bin/dagu scheduler` processes that share
// nothing but a throwaway PostgreSQL: the server restarted, the server stalled past T, the active scheduler's
// connections killed, and the active scheduler cut off from the database while it still believes it is
// active (a proxy that goes silent, or resets). After each: exactly one active again, no slot run twice, no
// slot of the window lost without a reason the design gives, no run left queued or running, and for the
// cut-off scheduler: it stops at T − I on its own clock, exits non-zero, and nothing it tried after the
// takeover landed.

import { afterEach, describe, expect, it } from 'vitest';
import {
  eventually,
  freePort,
  logRecords,
  startService,
  tempHome,
  waitForLog,
  type Service,
} from '../harness';
import { clientPortsOf, runFiles, runStepOutput, runsOf, slotsBetween, type RunRow } from './faultSupport';
import { usePostgres } from './pgTestCluster';
import { startTcpProxy, type TcpProxy } from './tcpProxy';

// The server is crashed and the tests then judge what it committed: a commit it acknowledged must survive.
const pg = usePostgres({ synchronousCommit: true });
const T_MS = 3000;
const R_MS = 500;
/** I = T/4: the holder renews every I and stops dispatching T − I after its last renewal began. */
const I_MS = T_MS / 4;
const SLOT_MS = 2000;
const DAG = 'schedule: "*/2 * * * * *"\noverlap_policy: all\nsteps:\n  - name: a\n    command: echo ran\n';
const LOST = /^Stopped being the active scheduler: .*; exiting$/;
const TOOK_OVER = /^Took over the scheduler lock from a failed instance$/;

interface Sched {
  svc: Service;
  pid: number;
  healthPort: number;
  exited: Promise<number | null>;
  running(): boolean;
}

let schemaN = 0;
const cleanups: Array<() => Promise<void> | void> = [];
const scheds: Sched[] = [];
let serverDown: 'crashed' | 'frozen' | null = null;

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') {
    for (const s of scheds) console.log(`output of scheduler pid ${s.pid}:\n${s.svc.output()}`);
  }
  if (serverDown === 'frozen') await pg().cluster.thaw();
  if (serverDown === 'crashed') await pg().cluster.start();
  serverDown = null;
  await Promise.all(scheds.splice(0).map((s) => s.svc.stop('SIGKILL')));
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Group {
  schema: string;
  group: Sched[];
  homes: string[];
}

/** Starts `n` schedulers on homes of their own and one fresh schema; the first (through `firstUrl`) is active. */
async function startGroup(n: number, firstUrl?: string): Promise<Group> {
  const schema = `faults_${process.pid}_${++schemaN}`;
  const group: Sched[] = [];
  const homes: string[] = [];
  for (let i = 0; i < n; i++) {
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: schema,
      DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${T_MS}ms`,
      DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${R_MS}ms`,
      DAGU_SKIP_EXAMPLES: 'true',
    });
    cleanups.push(() => h.cleanup());
    homes.push(h.home);
    // The DAGs live in the database: one push (straight to the server, never through a proxy this process
    // serves, as the push blocks it) gives every home the DAG.
    if (i === 0) h.writeDag('tick', DAG);
    const healthPort = await freePort();
    const svc = startService(['scheduler'], {
      ...h.env,
      DAGU_SCHEDULER_PORT: String(healthPort),
      ...(i === 0 && firstUrl ? { DAGU_POSTGRES_URL: firstUrl } : {}),
    });
    const exited = new Promise<number | null>((resolve) => svc.child.once('exit', (code) => resolve(code)));
    const s: Sched = {
      svc,
      pid: svc.child.pid!,
      healthPort,
      exited,
      running: () => svc.child.exitCode === null && svc.child.signalCode === null,
    };
    scheds.push(s);
    group.push(s);
    await waitForLog(
      svc,
      i === 0 ? /^Acquired the free scheduler lock$/ : /^Waiting as standby for the scheduler lock$/,
    );
  }
  return { schema, group, homes };
}

async function roleOf(s: Sched): Promise<string | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${s.healthPort}/health`, { signal: AbortSignal.timeout(2000) });
    return ((await res.json()) as { role: string }).role;
  } catch {
    return null;
  }
}

/**
 * Waits until exactly one running scheduler says it is active, the lock row names it, and that holds on three
 * reads in a row (a second active would show up meanwhile). Returns it.
 */
async function oneActive(schema: string, group: Sched[]): Promise<Sched> {
  let streak = 0;
  let last: Sched | null = null;
  return eventually(
    async () => {
      const live = group.filter((s) => s.running());
      const roles = await Promise.all(live.map(roleOf));
      const active = live.filter((_, i) => roles[i] === 'active');
      const lease = await pg().pool.query<{ pid: number }>(`select pid from ${schema}.scheduler_lease`);
      const ok = active.length === 1 && lease.rows[0]?.pid === active[0].pid;
      streak = ok && active[0] === last ? streak + 1 : ok ? 1 : 0;
      last = ok ? active[0] : null;
      return streak >= 3 ? last : null;
    },
    40_000,
    300,
  );
}

/** Runs of the DAG whose slot is at or after `fromMs`, once one at or after `minSlotMs` exists. */
async function waitForSlot(schema: string, minSlotMs: number, timeoutMs = 30_000): Promise<RunRow[]> {
  return eventually(async () => {
    const rows = await runsOf(pg().pool, schema, 'tick');
    return rows.some((r) => r.slotMs !== null && r.slotMs >= minSlotMs) ? rows : null;
  }, timeoutMs);
}

/**
 * The figures that must be 0 after a fault, over the slots from `fromMs` to the first live slot at least 4 s
 * after `faultEndMs`: slots run twice, slots with no run and no reason, runs left queued or running.
 */
async function expectRecovered(
  { schema, group, homes }: Group,
  fromMs: number,
  fault: { startMs: number; endMs: number },
) {
  const faultEndMs = fault.endMs;
  const toMs = (await waitForSlot(schema, faultEndMs + 4000)).find(
    (r) => r.slotMs! >= faultEndMs + 4000,
  )!.slotMs!;
  // A takeover from a failed instance replays every slot after that instance's last tick (scheduler.
  // failover_recovery_window, 2m), so a slot may be missing only where the design skips it and logs so.
  const skips = group.flatMap((s) =>
    logRecords(s.svc.output(), /^Skipped a slot: (a newer slot|the previous run)/).map((l) => ({
      slotMs: Date.parse(String(l.fields.slot)),
      atMs: l.timeMs,
      why: l.msg.includes('newer') ? ('late tick' as const) : ('overlap' as const),
    })),
  );
  // A slot with no run is explained only by a skip the design makes and its evidence: a late tick (cron
  // semantics), or a live slot skipped while another run of the DAG was queued or running at that moment.
  // A run's finished_at is stamped by its process before the write that ends the run commits; on this
  // loaded 2-core host, with the database's connections being cut, that write was seen landing 51 ms
  // later, so the end is allowed END_LANDS_MS to land.
  const END_LANDS_MS = 250;
  const explained = (slot: number, rows: RunRow[]) =>
    skips.some(
      (k) =>
        k.slotMs === slot &&
        (k.why === 'late tick' ||
          rows.some(
            (r) =>
              r.slotMs !== slot &&
              r.createdMs <= k.atMs + 50 &&
              (r.finishedMs === null || r.finishedMs >= k.atMs - END_LANDS_MS),
          )),
    );
  const missing = (rows: RunRow[]) => {
    const have = new Set(rows.map((r) => r.slotMs));
    return slotsBetween(fromMs, toMs, SLOT_MS).filter((slot) => !have.has(slot) && !explained(slot, rows));
  };
  // Catch-ups are recorded when they are queued, so the records settle quickly; give them a while anyway.
  const rows = await eventually(async () => {
    const r = await runsOf(pg().pool, schema, 'tick');
    return missing(r).length === 0 ? r : null;
  }, 15_000).catch(async () => runsOf(pg().pool, schema, 'tick'));
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  expect(
    missing(rows).map((ms) => new Date(ms).toISOString()),
    `slots with no run and no reason; skips ${JSON.stringify(skips.map((k) => ({ ...k, slot: iso(k.slotMs), at: iso(k.atMs) })))}; runs ${JSON.stringify(
      rows.map((r) => [r.runId, r.status, iso(r.createdMs), iso(r.finishedMs), r.error]),
    )}`,
  ).toEqual([]);
  const bySlot = new Map<number, string[]>();
  for (const r of rows)
    if (r.slotMs !== null) bySlot.set(r.slotMs, [...(bySlot.get(r.slotMs) ?? []), r.runId]);
  expect(
    [...bySlot.values()].filter((ids) => ids.length > 1),
    'slots run twice',
  ).toEqual([]);
  // After a settle, no run of the window is left queued or running: each finished, whoever owned it.
  const settled = await eventually(async () => {
    const r = (await runsOf(pg().pool, schema, 'tick')).filter((x) => x.slotMs !== null && x.slotMs <= toMs);
    return r.every((x) => x.status !== 'queued' && x.status !== 'running') ? r : null;
  }, 30_000).catch(async () => runsOf(pg().pool, schema, 'tick'));
  const stuck = settled.filter((x) => x.slotMs! <= toMs && (x.status === 'queued' || x.status === 'running'));
  expect(
    stuck.map((x) => `${x.runId} ${x.status}`),
    'runs left queued or running',
  ).toEqual([]);
  // The step only echoes: a run that did not succeed was broken by the fault. The one break the design
  // gives (see UNREPORTED) is let through, narrowly, and said on the console; a run failed as never started
  // (its slot lost) or for any other reason fails the test.
  const broken = settled.filter((x) => x.slotMs! <= toMs && x.status !== 'succeeded');
  const unreported = broken.filter((x) => unreportedInOutage(x, fault));
  for (const x of unreported) {
    const ran = runStepOutput(homes, x.runId).includes('ran') ? 'its step ran' : 'its step did not run';
    console.warn(`run that could not report (UNREPORTED) seen, ${ran}: ${x.runId} ${x.error}`);
  }
  const unknown = broken.filter((x) => !unreported.includes(x));
  expect(
    unknown.map((x) => `${x.runId} ${x.status} ${x.error ?? ''}`),
    `runs that did not succeed; their statuses and own logs:\n${unknown
      .map((x) => `${JSON.stringify(x.doc)}\n${runFiles(homes, x.runId)}`)
      .join('\n')}`,
  ).toEqual([]);
  return { toMs, rows };
}

/**
 * UNREPORTED: a slot's run whose process had begun it (written `running`) just as the database went away, or
 * was cut off from it, cannot write its progress or its end; it gives up after its final-status budget (run.
 * heartbeat_stale_threshold, 3 s here, shorter than the outage) and exits. Its steps ran, so no other process
 * may run the slot; the dead-run check fails it once that budget is out, saying its process is gone or fell
 * silent. Let through only with such a reason, for a run created within T of the fault's start. A run whose
 * process claimed it and never began it is started again by the active scheduler instead, so a failed one
 * (claimed, or never started: a slot lost) is not let through.
 */
const UNREPORTED_REASON = /^run process \d+ on \S+ (is gone|stopped heartbeating .+ ago); marked failed$/;

function unreportedInOutage(r: RunRow, fault: { startMs: number; endMs: number }): boolean {
  return (
    r.status === 'failed' &&
    UNREPORTED_REASON.test(r.error ?? '') &&
    r.createdMs >= fault.startMs - T_MS &&
    r.createdMs <= fault.endMs
  );
}

/** Waits for `s` to exit and answers its exit code. */
async function exitOf(s: Sched, timeoutMs: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'still running'>(
    (r) => (timer = setTimeout(() => r('still running'), timeoutMs)),
  );
  const code = await Promise.race([s.exited, timeout]);
  clearTimeout(timer);
  return code;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('storage.backend: postgres under faults of the database', () => {
  it('PostgreSQL restarted (crash, then start): one active again, each slot once, none lost, none stuck', async () => {
    const g = await startGroup(3);
    const { schema, group } = g;
    const first = await waitForSlot(schema, 0);
    const fromMs = Math.min(...first.map((r) => r.slotMs!));

    serverDown = 'crashed';
    const crashedAt = Date.now();
    await pg().cluster.crash();
    await sleep(4000); // down for longer than T − I: no holder can renew meanwhile
    await pg().cluster.start();
    serverDown = null;
    const faultEnd = Date.now();

    // The holder could not renew for T − I: it said so and exited non-zero.
    const lost = await waitForLog(group[0].svc, LOST, 20_000);
    expect(lost.timeMs).toBeGreaterThanOrEqual(crashedAt);
    expect(await exitOf(group[0], 20_000)).not.toBe(0);
    const active = await oneActive(schema, group);
    expect(active).not.toBe(group[0]);
    await expectRecovered(g, fromMs, { startMs: crashedAt, endMs: faultEnd });
  });

  it('PostgreSQL stalled past T (SIGSTOP): one active again, each slot once, none lost, none stuck', async () => {
    const g = await startGroup(3);
    const { schema, group } = g;
    const first = await waitForSlot(schema, 0);
    const fromMs = Math.min(...first.map((r) => r.slotMs!));

    serverDown = 'frozen';
    const frozenAt = Date.now();
    await pg().cluster.freeze();
    await sleep(T_MS + 3000);
    await pg().cluster.thaw();
    serverDown = null;
    const faultEnd = Date.now();

    // Its renewals got no answer: the holder stopped at T − I after the last one began, on its own clock.
    const lost = await waitForLog(group[0].svc, LOST, 20_000);
    expect(lost.timeMs - frozenAt).toBeLessThanOrEqual(T_MS - I_MS + 1000);
    expect(await exitOf(group[0], 20_000)).not.toBe(0);
    await oneActive(schema, group);
    await expectRecovered(g, fromMs, { startMs: frozenAt, endMs: faultEnd });
  });

  it("the active scheduler's connections killed (pg_terminate_backend): one active, each slot once, none lost", async () => {
    const g = await startGroup(2);
    const { schema, group } = g;
    const first = await waitForSlot(schema, 0);
    const fromMs = Math.min(...first.map((r) => r.slotMs!));

    // Every connection of the active process, its lock pool's and its LISTEN connection's too; twice, so the
    // connections it opens again at once are killed as well.
    const killedAt = Date.now();
    let killed = 0;
    for (let round = 0; round < 2; round++) {
      const ports = clientPortsOf(group[0].pid);
      const r = await pg().pool.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where client_addr = '127.0.0.1' and client_port = any($1::int[]) and pid <> pg_backend_pid()`,
        [ports],
      );
      killed += r.rowCount ?? 0;
      await sleep(1000);
    }
    expect(killed).toBeGreaterThan(0);
    const faultEnd = Date.now();

    await oneActive(schema, group);
    await expectRecovered(g, fromMs, { startMs: killedAt, endMs: faultEnd });
  });
});

describe('storage.backend: postgres, a scheduler cut off from the database while it believes it is active', () => {
  const cases: Array<[string, (p: TcpProxy) => void]> = [
    ['a proxy that goes silent (bytes dropped, sockets kept open)', (p) => p.blackhole()],
    ['a proxy that resets every connection', (p) => p.reset()],
  ];
  it.each(cases)(
    '%s: stops at T − I, exits non-zero, nothing it tried after the takeover landed',
    async (_, cut) => {
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg().cluster.port });
      cleanups.push(() => proxy.close());
      const url = new URL(pg().cluster.url);
      url.port = String(proxy.port);
      const g = await startGroup(3, url.toString());
      const { schema, group } = g;
      const cutOff = group[0];
      // The cut-off instance has been dispatching through the proxy.
      const first = await eventually(async () => {
        const rows = await runsOf(pg().pool, schema, 'tick');
        return rows.filter((r) => r.dispatchedBy?.includes(`-${cutOff.pid}-`)).length >= 2 ? rows : null;
      }, 30_000);
      const fromMs = Math.min(...first.map((r) => r.slotMs!));

      const cutAt = Date.now();
      cut(proxy);

      // On its own clock it stops T − I after its last renewal began, which was at most I (and a renewal's
      // deadline) before the cut: no earlier than T − 2I − slack after the cut, no later than T − I + slack.
      const lost = await waitForLog(cutOff.svc, LOST, 20_000);
      expect(lost.timeMs - cutAt).toBeGreaterThanOrEqual(T_MS - 2 * I_MS - 300);
      expect(lost.timeMs - cutAt).toBeLessThanOrEqual(T_MS - I_MS + 500);
      expect(await exitOf(cutOff, 20_000)).not.toBe(0);

      // A standby takes over within T + 2R of the last renewal, and only after the holder stopped.
      const takers = group.slice(1);
      const took = await Promise.any(takers.map((s) => waitForLog(s.svc, TOOK_OVER, 20_000)));
      expect(took.timeMs - cutAt).toBeLessThanOrEqual(T_MS + 2 * R_MS + 1000);
      expect(took.timeMs).toBeGreaterThanOrEqual(lost.timeMs);
      const active = await oneActive(schema, group);
      expect(takers).toContain(active);

      const { rows } = await expectRecovered(g, fromMs, { startMs: cutAt, endMs: took.timeMs });
      // Nothing the cut-off instance attempted landed after the new holder's acquisition: every run created
      // after it was made by another instance.
      const tookAt = (
        await pg().pool.query<{ at: Date }>(`select at from ${schema}.failover_events where reason = 'stale'`)
      ).rows[0].at.getTime();
      const late = rows.filter((r) => r.dispatchedBy?.includes(`-${cutOff.pid}-`) && r.createdMs > tookAt);
      expect(late.map((r) => r.runId)).toEqual([]);
      // And it made nothing once it had stopped dispatching.
      const afterStop = rows.filter(
        (r) => r.dispatchedBy?.includes(`-${cutOff.pid}-`) && r.createdMs > lost.timeMs,
      );
      expect(afterStop.map((r) => r.runId)).toEqual([]);
    },
  );
});
