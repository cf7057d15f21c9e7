// The faults the chaos driver picks from, each one an async function on the running cluster that returns what
// it did. They act on whoever holds the role at that moment (the active scheduler, a busy worker), as read
// from the cluster itself. The storage faults are the backend's own: faultfs on files, the database's faults
// (pgActions) on PostgreSQL.

import type { Prng } from '../../server/scheduler/sim/prng';
import {
  COORDINATOR,
  SCHEDULERS,
  STALE_THRESHOLD_MS,
  WORKERS,
  type ChaosCluster,
  type SoakBackend,
} from './chaosCluster';
import { PG_ACTION_KINDS, runPgAction, type PgActionKind } from './pgActions';

/** Faults of the processes, on either backend. */
type ProcessActionKind =
  | 'kill-9 active'
  | 'kill-9 standby'
  | 'SIGSTOP active past T'
  | 'clean stop of active'
  | 'kill-9 worker mid-run'
  | 'coordinator restart';

/** Faults of the shared data directory's storage. */
type FileActionKind = 'storage stall' | 'storage EIO burst' | 'disk full (ENOSPC)';

export type ActionKind = ProcessActionKind | FileActionKind | PgActionKind;

const PROCESS_ACTION_KINDS: readonly ProcessActionKind[] = [
  'kill-9 active',
  'kill-9 standby',
  'SIGSTOP active past T',
  'clean stop of active',
  'kill-9 worker mid-run',
  'coordinator restart',
];

/** The file soak's menu, in its historical order (a seed replays the same faults it always did). */
export const ACTION_KINDS: readonly ActionKind[] = [
  'kill-9 active',
  'kill-9 standby',
  'SIGSTOP active past T',
  'clean stop of active',
  'storage stall',
  'storage EIO burst',
  'disk full (ENOSPC)',
  'kill-9 worker mid-run',
  'coordinator restart',
];

/** The faults of the backend's storage, each dealt once in a seeded order before the random picks. */
export function storageFaults(backend: SoakBackend): readonly ActionKind[] {
  return backend === 'postgres' ? PG_ACTION_KINDS : [];
}

/**
 * The menu the driver picks from. On PostgreSQL the database's faults are listed twice: they are what that
 * soak is for, and the process faults are the file soak's as well.
 */
export function actionKinds(backend: SoakBackend): readonly ActionKind[] {
  return backend === 'postgres'
    ? [...PROCESS_ACTION_KINDS, ...PG_ACTION_KINDS, ...PG_ACTION_KINDS]
    : ACTION_KINDS;
}

/** Which part of a host's storage a stall or an EIO burst hits (a faultfs path filter). */
const STORAGE_SCOPES = [
  { what: 'all', filter: null },
  { what: 'the data directory', filter: 'path=/data' },
  { what: 'the run logs', filter: 'path=/logs' },
] as const;

/**
 * A storage fault as the driver dealt it on one scheduler host's faultfs mount: the storage of that scheduler
 * and of every run process it started. From just before the fault was switched on until just after it was
 * switched off (wall clock): the fault was in force within, never outside.
 */
export interface StorageFaultWindow {
  /** The scheduler whose host storage it hit. */
  host: string;
  mode: 'stall' | 'eio' | 'ENOSPC';
  /** The part of the home it hit (a faultfs path filter), or null for all of it. */
  filter: string | null;
  fromMs: number;
  toMs: number;
}

/** What one action did, for the timeline and the figures. */
export interface ActionRecord {
  kind: ActionKind;
  target: string | null;
  atMs: number;
  detail: string;
  /** For a fault on the active scheduler: the PID that held the role. */
  victimPid?: number;
  /** For SIGSTOP: when the process was resumed (SIGCONT). */
  resumedAtMs?: number;
  /** Exit code of the process the action stopped, when it exited during the action. */
  exitCode?: number | null;
  /** For a storage fault: where and when it was in force. */
  storage?: StorageFaultWindow;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for the member's current process to exit, at most `ms`; true when it did. */
async function exitWithin(c: ChaosCluster, name: string, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  const done = await Promise.race([c.supervisor.exited(name).then(() => true as const), timeout]);
  clearTimeout(timer);
  return done;
}

function lastExitCode(c: ChaosCluster, name: string): number | null {
  const incs = c.supervisor.incarnations.filter((i) => i.member === name && i.exitedAtMs !== null);
  return incs[incs.length - 1]?.exitCode ?? null;
}

export async function runAction(c: ChaosCluster, kind: ActionKind, rng: Prng): Promise<ActionRecord> {
  const atMs = Date.now();
  const rec = (target: string | null, detail: string, extra: Partial<ActionRecord> = {}): ActionRecord => ({
    kind,
    target,
    atMs,
    detail,
    ...extra,
  });
  switch (kind) {
    case 'kill-9 active': {
      const a = await c.active();
      if (!a) return rec(null, 'no active scheduler to kill');
      const pid = c.supervisor.current(a)?.pid;
      c.supervisor.signal(a, 'SIGKILL');
      await exitWithin(c, a, 10_000);
      return rec(a, 'SIGKILL', { victimPid: pid });
    }
    case 'kill-9 standby': {
      const roles = await c.roles();
      const standbys = SCHEDULERS.filter((n) => roles.get(n) === 'standby');
      if (standbys.length === 0) return rec(null, 'no standby to kill');
      const s = rng.pick(standbys);
      c.supervisor.signal(s, 'SIGKILL');
      await exitWithin(c, s, 10_000);
      return rec(s, 'SIGKILL');
    }
    case 'SIGSTOP active past T': {
      const a = await c.active();
      if (!a) return rec(null, 'no active scheduler to stop');
      const pid = c.supervisor.current(a)?.pid;
      const pausedMs = STALE_THRESHOLD_MS + rng.int(300, 2500);
      c.supervisor.signal(a, 'SIGSTOP');
      await sleep(pausedMs);
      c.supervisor.signal(a, 'SIGCONT');
      const resumedAtMs = Date.now();
      // Past its fence on resuming, it must notice and exit non-zero by itself.
      const exited = await exitWithin(c, a, 15_000);
      return rec(
        a,
        `SIGSTOP for ${pausedMs} ms, then SIGCONT; ${exited ? 'it exited' : 'still running 15 s later'}`,
        {
          victimPid: pid,
          resumedAtMs,
          exitCode: exited ? lastExitCode(c, a) : undefined,
        },
      );
    }
    case 'clean stop of active': {
      const a = await c.active();
      if (!a) return rec(null, 'no active scheduler to stop');
      const pid = c.supervisor.current(a)?.pid;
      c.supervisor.signal(a, 'SIGTERM');
      const exited = await exitWithin(c, a, 15_000);
      return rec(a, exited ? 'SIGTERM' : 'SIGTERM; still running 15 s later', {
        victimPid: pid,
        exitCode: exited ? lastExitCode(c, a) : undefined,
      });
    }
    case 'storage stall':
    case 'storage EIO burst': {
      // The active's host more often than not: that is where a fault can cost slots or split the brain.
      const a = await c.active();
      const host = a && rng.chance(0.6) ? a : rng.pick(SCHEDULERS);
      const mode = kind === 'storage stall' ? 'stall' : 'eio';
      // The whole home, or one part of it: the run logs often live on a volume of their own, and a fault
      // there meets different code (the run launch) than one on the data directory.
      const scope = rng.pick(STORAGE_SCOPES);
      const ms = rng.int(1000, 5000);
      const fs = c.hosts.get(host)!.fs;
      const victimPid = host === a ? c.supervisor.current(host)?.pid : undefined;
      const fromMs = Date.now();
      await fs.set(scope.filter ? `${mode} ${scope.filter}` : mode);
      await sleep(ms);
      await fs.set('normal');
      const storage: StorageFaultWindow = { host, mode, filter: scope.filter, fromMs, toMs: Date.now() };
      const whose = host === a ? 'the active' : 'a standby';
      return rec(host, `${mode} for ${ms} ms on ${scope.what} of ${whose}'s storage`, { victimPid, storage });
    }
    case 'disk full (ENOSPC)': {
      // A host's disk fills: every write that needs space fails, while reads, renames and unlinks go on, as
      // on a real full disk. Long enough, often, to fence the active and to cut runs off mid-flight, whose
      // ends then cannot be written: the owner check after the soak finds any run left `running` for ever.
      const a = await c.active();
      const host = a && rng.chance(0.6) ? a : rng.pick(SCHEDULERS);
      const ms = rng.int(1000, 6000);
      const fs = c.hosts.get(host)!.fs;
      const victimPid = host === a ? c.supervisor.current(host)?.pid : undefined;
      const fromMs = Date.now();
      await fs.set('errno ENOSPC ops=write,create,mkdir');
      await sleep(ms);
      await fs.set('normal');
      const storage: StorageFaultWindow = { host, mode: 'ENOSPC', filter: null, fromMs, toMs: Date.now() };
      const whose = host === a ? 'the active' : 'a standby';
      return rec(host, `ENOSPC for ${ms} ms on ${whose}'s storage`, { victimPid, storage });
    }
    case 'kill-9 worker mid-run': {
      // Wait (a while) for a worker that is executing a run, so the kill lands mid-run.
      const until = Date.now() + 8000;
      const busyNow = async () => {
        const runs = await Promise.all(WORKERS.map((w) => c.workerRuns(w)));
        return WORKERS.filter((w, i) => c.supervisor.current(w) && runs[i].length > 0);
      };
      let busy = await busyNow();
      while (busy.length === 0 && Date.now() < until) {
        await sleep(100);
        busy = await busyNow();
      }
      const w = busy.length > 0 ? rng.pick(busy) : rng.pick(WORKERS);
      const runs = await c.workerRuns(w);
      c.supervisor.signal(w, 'SIGKILL');
      await exitWithin(c, w, 10_000);
      return rec(w, runs.length > 0 ? `SIGKILL while running ${runs.join(', ')}` : 'SIGKILL while idle');
    }
    case 'coordinator restart': {
      const sig = rng.chance(0.5) ? 'SIGTERM' : 'SIGKILL';
      c.supervisor.signal(COORDINATOR, sig);
      await exitWithin(c, COORDINATOR, 15_000);
      return rec(COORDINATOR, sig);
    }
    default:
      return runPgAction(c, kind, rng, rec);
  }
}
