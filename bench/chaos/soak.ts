// One chaos soak from start to end: the cluster up, N seeded cycles of faults, a bounded settle, the owner
// check on the live cluster, then the analysis of the run store, the markers, the logs and the events. On
// PostgreSQL the records are the database's: runs, the event log, the failover history and the soak's
// witness of run inserts (analysis/fence).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../../server/scheduler/sim/prng';
import { analyseFailovers } from './analysis/failovers';
import { checkFence } from './analysis/fence';
import { checkActs } from './analysis/acts';
import {
  acquisitions,
  checkLeases,
  epochsOutOfOrder,
  missingEpochs,
  unsettledEpochs,
} from './analysis/leases';
import { findOwnerless } from './analysis/owners';
import { analyseSlots } from './analysis/slots';
import { readExecutions, readSchedulerLogs } from './analysis/soakData';
import { ChaosCluster, RUN_HEARTBEAT_STALE_MS, type SoakBackend } from './chaosCluster';
import { CHAOS_DAGS } from './dags';
import { driveChaos, type CycleRecord } from './driver';
import { formatFigures, type SoakFigures } from './figures';

export interface SoakOptions {
  /** The control plane's store (default: files). */
  backend?: SoakBackend;
  cycles: number;
  seed: number;
  /** Progress lines (cycle by cycle). */
  log: (line: string) => void;
  /**
   * Keep the temp tree (logs, data; on PostgreSQL the runs too, in runs.json) for a post-mortem, always or
   * only when a must-be-0 figure is not 0; its path is logged.
   */
  keep?: boolean | 'on-failure';
}

export interface SoakResult {
  figures: SoakFigures;
  lines: string[];
  failures: string[];
  /** The slots not run for a reason the design allows, one line each. */
  skips: string[];
}

const SETTLE_BOUND_MS = 60_000;
/**
 * The cluster runs on, fault-free, at least this long after the last fault: the slots due just before the
 * window closed get dispatched (after a failover, replayed) before the run store is read.
 */
const SETTLE_MIN_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Clusters of soaks still running, for a caller that gives up on a soak (a test timeout) to stop them. */
const running = new Set<ChaosCluster>();

/** Stops the cluster of every soak still running (storage back to normal, processes killed, mounts removed). */
export async function stopRunningSoaks(): Promise<void> {
  await Promise.all([...running].map((c) => c.cleanup()));
  running.clear();
}

/** Waits (bounded) until no run of a slot up to `toMs` is still queued or running. */
async function settle(c: ChaosCluster, toMs: number): Promise<void> {
  await sleep(Math.max(0, toMs + SETTLE_MIN_MS - Date.now()));
  const until = Date.now() + SETTLE_BOUND_MS;
  while (Date.now() < until) {
    const open = (await c.records.runs().catch(() => [])).filter(
      (r) =>
        (r.status === 'queued' || r.status === 'running') &&
        r.schedule_time &&
        Date.parse(r.schedule_time) <= toMs,
    );
    if (open.length === 0) return;
    await sleep(500);
  }
}

/** How long the first active runs before the soak window opens: its replay and first ticks are done. */
const WARM_UP_MS = 8000;

/**
 * Waits until every member is up and one scheduler active, publishes the DAGs where that waits for an active
 * (PostgreSQL), waits WARM_UP_MS more, and then until the catch-ups
 * that the first acquisition replays (slots before the soak, under each DAG's catchup_window) have run: the
 * soak window opens on a quiet cluster whose active has recorded its last tick.
 */
async function untilReady(c: ChaosCluster): Promise<void> {
  const until = Date.now() + 120_000;
  const check = (what: string) => {
    if (Date.now() > until) throw new Error(`the soak cluster did not ${what} within 120 s`);
  };
  while (!(c.supervisor.allUp() && (await c.active()))) {
    check('come up');
    await sleep(100);
  }
  await c.publishDags();
  await sleep(WARM_UP_MS);
  const catchingUp = async () =>
    (await c.records.runs().catch(() => [])).some(
      (r) => r.trigger_type === 'catchup' && (r.status === 'queued' || r.status === 'running'),
    );
  while (!(c.supervisor.allUp() && (await c.active())) || (await catchingUp())) {
    check('catch up');
    await sleep(250);
  }
}

/** Faults after which the active they hit must have noticed it was past its fence and exited non-zero. */
const FENCED_BY: ReadonlyMap<string, string> = new Map([
  ['SIGSTOP active past T', 'resumed past its fence'],
  ['PostgreSQL stalled past T (SIGSTOP)', 'unable to renew past its fence while the database stalled'],
  ['active cut off from the database', 'cut off from the database past its fence'],
]);

function badExits(cycles: readonly CycleRecord[]): string[] {
  const out: string[] = [];
  for (const c of cycles) {
    if (c.kind === 'clean stop of active' && c.target && c.exitCode !== 0)
      out.push(`cycle ${c.cycle}: the clean stop of ${c.target} exited ${c.exitCode ?? 'not at all'}`);
    const fenced = FENCED_BY.get(c.kind);
    if (fenced && c.target && (c.exitCode === 0 || c.exitCode === undefined))
      out.push(`cycle ${c.cycle}: ${c.target}, ${fenced}, exited ${c.exitCode ?? 'not at all'}`);
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A cycle's progress line, with its absolute times (UTC) so that a slot or a log line can be matched to the
 * fault: the action from its start to its end, a storage fault's own window on its host, and when the cluster
 * was whole again.
 */
export function cycleLine(r: CycleRecord): string {
  const s = r.storage;
  const times = [
    `${iso(r.atMs)} .. ${iso(r.endedMs)}`,
    ...(s
      ? [`${s.mode}${s.filter ? ` ${s.filter}` : ''} on ${s.host} ${iso(s.fromMs)} .. ${iso(s.toMs)}`]
      : []),
    r.recoveredMs === null ? 'not whole within 60 s' : `whole at ${iso(r.atMs + r.recoveredMs)}`,
  ];
  return (
    `cycle ${r.cycle}: ${r.kind}${r.target ? ` (${r.target})` : ''}: ${r.detail}; whole again after ` +
    `${r.recoveredMs ?? '>60000'} ms [${times.join('; ')}]`
  );
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const rng = mulberry32(o.seed);
  const backend = o.backend ?? 'file';
  const startedMs = Date.now();
  // Each phase's time since the start: where a soak that ran long spent it.
  const at = () => `${((Date.now() - startedMs) / 1000).toFixed(1)} s`;
  const c = await ChaosCluster.start(backend);
  running.add(c);
  o.log(`chaos soak on ${backend}: seed ${o.seed}, ${o.cycles} cycles, home ${c.home} (started at ${at()})`);
  const stopOnSignal = () => {
    void c.cleanup(o.keep === true).finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  let keep = o.keep === true;
  try {
    await untilReady(c);
    const fromMs = Date.now();
    o.log(`ready at ${at()} (${iso(fromMs)}): the soak window opens`);
    const cycles = await driveChaos(c, rng, o.cycles, (r) => o.log(cycleLine(r)));
    const toMs = Date.now();
    o.log(`chaos stopped at ${at()} (${iso(toMs)}): the soak window closes; settling`);
    await settle(c, toMs);
    o.log(`settled at ${at()}`);
    const ownerless = await findOwnerless(c);
    o.log(`owners checked at ${at()}`);
    const runs = await c.records.runs();
    const logs = readSchedulerLogs(c.supervisor.incarnations);
    const acqs = acquisitions(logs, await c.records.roleEvents(), await c.records.lockHistory());
    const executions = readExecutions(c.markerFile);
    const inserted = await c.records.insertedAttempts();
    const figures: SoakFigures = {
      backend,
      seed: o.seed,
      cycles,
      windowMs: toMs - fromMs,
      slots: analyseSlots(
        CHAOS_DAGS,
        fromMs,
        toMs,
        executions,
        runs,
        logs,
        cycles.flatMap((x) =>
          x.kind === 'kill-9 worker mid-run' && x.target ? [{ worker: x.target, atMs: x.atMs }] : [],
        ),
        await c.records.endsRecorded(),
        {
          faults: cycles.flatMap((x) => (x.storage ? [x.storage] : [])),
          hostOfPid: new Map(
            c.supervisor.incarnations.filter((i) => i.kind === 'scheduler').map((i) => [i.pid, i.member]),
          ),
          finalStatusRetryMs: RUN_HEARTBEAT_STALE_MS,
        },
      ),
      leases: checkLeases(runs, acqs),
      acts: checkActs(
        logs,
        acqs,
        cycles.flatMap((x) =>
          x.victimPid !== undefined && x.resumedAtMs !== undefined
            ? [{ pid: x.victimPid, resumedAtMs: x.resumedAtMs }]
            : [],
        ),
      ),
      missingEpochs: missingEpochs(acqs, unsettledEpochs(logs)),
      epochsOutOfOrder: epochsOutOfOrder(acqs),
      ownerless,
      failovers: analyseFailovers(acqs, cycles),
      badExits: badExits(cycles),
      fence: inserted ? checkFence(inserted, acqs, logs, runs, executions) : null,
    };
    const result = { figures, ...formatFigures(figures) };
    keep = o.keep === true || (o.keep === 'on-failure' && result.failures.length > 0);
    // The database goes with the cluster: what a post-mortem needs of it is the runs' statuses.
    if (keep && c.pg) writeFileSync(path.join(c.root, 'runs.json'), JSON.stringify(runs, null, 1));
    return result;
  } finally {
    process.off('SIGINT', stopOnSignal);
    running.delete(c);
    await c.cleanup(keep);
    if (keep) o.log(`kept ${c.root}`);
  }
}
