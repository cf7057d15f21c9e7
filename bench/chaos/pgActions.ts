// The faults of the soak's database (storage.backend: postgres): the server restarted after an immediate
// stop, the server stalled past T, a scheduler's connections killed by the server, and the active scheduler
// cut off from the database by its proxy while it still believes it is active.

import type { Prng } from '../../server/scheduler/sim/prng';
import { clientPortsOf } from '../../tests/integration/postgres/faultSupport';
import { SCHEDULERS, STALE_THRESHOLD_MS, type ChaosCluster } from './chaosCluster';
import type { ActionRecord } from './actions';
import type { PgChaos } from './pgChaos';
import { attemptsInsertedBy } from './pgRecords';

export type PgActionKind =
  | 'PostgreSQL restarted (immediate stop)'
  | 'PostgreSQL stalled past T (SIGSTOP)'
  | "a scheduler's connections killed"
  | 'active cut off from the database';

export const PG_ACTION_KINDS: readonly PgActionKind[] = [
  'PostgreSQL restarted (immediate stop)',
  'PostgreSQL stalled past T (SIGSTOP)',
  "a scheduler's connections killed",
  'active cut off from the database',
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits (at most `ms`) for the process `pid` to exit and answers its exit code, or undefined while it runs. By
 * PID, not by member: it may have exited during the fault already and its successor be running.
 */
async function exitOf(
  c: ChaosCluster,
  pid: number | undefined,
  ms: number,
): Promise<number | null | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const inc = c.supervisor.incarnations.find((i) => i.pid === pid);
    if (!inc) return undefined;
    if (inc.exitedAtMs !== null) return inc.exitCode;
    if (Date.now() > until) return undefined;
    await sleep(50);
  }
}

/** Waits (at most `ms`) until the scheduler `pid` inserts a run attempt; false when it did not. */
async function untilItInserts(db: PgChaos, pid: number, ms: number): Promise<boolean> {
  const before = await attemptsInsertedBy(db.pool, pid);
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await attemptsInsertedBy(db.pool, pid)) > before) return true;
    await sleep(20);
  }
  return false;
}

export async function runPgAction(
  c: ChaosCluster,
  kind: PgActionKind,
  rng: Prng,
  rec: (target: string | null, detail: string, extra?: Partial<ActionRecord>) => ActionRecord,
): Promise<ActionRecord> {
  const db = c.pg;
  if (!db) throw new Error(`${kind}: the soak does not run on PostgreSQL`);
  const a = await c.active();
  const victimPid = a ? c.supervisor.current(a)?.pid : undefined;
  switch (kind) {
    case 'PostgreSQL restarted (immediate stop)': {
      // Down for less than T − I the holder may ride it out; for longer, nobody can renew and it must go.
      const downMs = rng.int(1000, 5000);
      await db.cluster.crash();
      await sleep(downMs);
      await db.cluster.start();
      return rec(a, `immediate stop, down ${downMs} ms, then start`, { victimPid });
    }
    case 'PostgreSQL stalled past T (SIGSTOP)': {
      const stalledMs = STALE_THRESHOLD_MS + rng.int(300, 2500);
      await db.cluster.freeze();
      await sleep(stalledMs);
      await db.cluster.thaw();
      // Its renewals got no answer for longer than T − I: the holder must stop and exit non-zero.
      const exitCode = await exitOf(c, victimPid, 15_000);
      return rec(a, `SIGSTOP of every server process for ${stalledMs} ms, then SIGCONT`, {
        victimPid,
        exitCode,
      });
    }
    case "a scheduler's connections killed": {
      // The active's more often than not: that is where losing a renewal or a fenced write matters.
      const roles = await c.roles();
      const live = SCHEDULERS.filter((n) => roles.get(n) === 'active' || roles.get(n) === 'standby');
      if (live.length === 0) return rec(null, 'no scheduler up to cut');
      const target = a && rng.chance(0.6) ? a : rng.pick(live);
      const inc = c.supervisor.current(target);
      const proxy = db.proxies.get(target)!;
      // Its own connections only (not those of the runs it started, which share its proxy), found by the
      // proxy's pairing of the scheduler's sockets with the sockets the server sees; twice, so the
      // connections it opens again at once are killed as well.
      let killed = 0;
      for (let round = 0; round < 2 && inc; round++) {
        let ports: number[] = [];
        try {
          ports = proxy.upstreamPortsOf(clientPortsOf(inc.pid));
        } catch {
          /* it exited meanwhile */
        }
        const r = await db.pool.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
            where client_addr = '127.0.0.1' and client_port = any($1::int[]) and pid <> pg_backend_pid()`,
          [ports],
        );
        killed += r.rowCount ?? 0;
        await sleep(1000);
      }
      const whose = target === a ? 'the active' : 'a standby';
      return rec(
        target,
        `pg_terminate_backend of ${killed} connections of ${whose}, in two rounds 1 s apart`,
        {
          victimPid: target === a ? victimPid : undefined,
        },
      );
    }
    case 'active cut off from the database': {
      if (!a) return rec(null, 'no active scheduler to cut off');
      const proxy = db.proxies.get(a)!;
      // Silence is the hard case (no error, only no answer); a reset is what a firewall often does.
      const how = rng.chance(0.5) ? 'silent' : 'reset';
      // Half the time the cut lands just after it made a run (a run process then starting through the
      // same road): the moment where a run is most easily stranded between its record and its process.
      const afterDispatch = rng.chance(0.5);
      const dispatched =
        afterDispatch && victimPid !== undefined && (await untilItInserts(db, victimPid, 8000));
      if (how === 'silent') proxy.blackhole();
      else proxy.reset();
      // It believes it is active until its own clock says T − I passed without a renewal; then it must exit
      // non-zero. The cut outlasts that a while (its restarts fail meanwhile), then the road is mended.
      const exitCode = await exitOf(c, victimPid, 15_000);
      const extraMs = rng.int(0, 2000);
      await sleep(extraMs);
      proxy.heal();
      return rec(
        a,
        `proxy ${how === 'silent' ? 'silent (bytes dropped)' : 'resetting'}${afterDispatch ? (dispatched ? ' right after it made a run' : ' (it made no run within 8 s)') : ''}; ${exitCode !== undefined ? 'it exited' : 'still running 15 s later'}; mended ${extraMs} ms later`,
        { victimPid, exitCode },
      );
    }
  }
}
