// The soak's figures table, printed with the seed: every figure with its target, and the list of the figures
// that must be 0 but are not (the soak fails on any of them).

import type { ActionKind } from './actions';
import type { CycleRecord } from './driver';
import type { FailoverFigures, GapStats } from './analysis/failovers';
import type { ActCheck } from './analysis/acts';
import type { FenceFigures } from './analysis/fence';
import type { LeaseCheck } from './analysis/leases';
import type { Ownerless } from './analysis/owners';
import type { SlotFigures } from './analysis/slots';
import type { SoakBackend } from './chaosCluster';

export interface SoakFigures {
  backend: SoakBackend;
  seed: number;
  cycles: readonly CycleRecord[];
  windowMs: number;
  slots: SlotFigures;
  leases: LeaseCheck;
  acts: ActCheck;
  missingEpochs: number[];
  epochsOutOfOrder: number[];
  ownerless: Ownerless[];
  failovers: FailoverFigures;
  /** Clean stops that did not exit 0, and SIGSTOPped actives that did not exit non-zero on resuming. */
  badExits: string[];
  /** The database's fence, on PostgreSQL (null on files). */
  fence: FenceFigures | null;
}

const line = (name: string, value: string | number, target: string) =>
  `${name.padEnd(58)} ${String(value).padStart(8)}   (${target})`;

const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a');

function gapLine(name: string, g: GapStats): string {
  return line(`${name} (${g.count}): p50 / max`, `${ms(g.p50Ms)} / ${ms(g.maxMs)}`, 'reference');
}

/** The table lines and the must-be-0 figures that are not 0. */
export function formatFigures(f: SoakFigures): { lines: string[]; failures: string[]; skips: string[] } {
  const kinds = new Map<ActionKind, number>();
  for (const c of f.cycles) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
  const unrecovered = f.cycles.filter((c) => c.recoveredMs === null).length;
  const recovery = f.cycles.map((c) => c.recoveredMs).filter((v): v is number => v !== null);
  const dup = f.slots.duplicates.length;
  const missed = f.slots.unexplained.length;
  const past = f.leases.violations.length;
  const lines = [
    `chaos soak on ${f.backend}: seed ${f.seed}, ${f.cycles.length} cycles over ${(f.windowMs / 60_000).toFixed(1)} min`,
    `faults: ${[...kinds.entries()].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    line('slots due', f.slots.due, 'reference'),
    line('slots run', f.slots.ran, 'reference'),
    ...[...f.slots.skipped.entries()].map(([why, n]) =>
      line(`  not run, allowed by design: ${why}`, n, 'reference'),
    ),
    line('slots run more than once', dup, 'must be 0'),
    line('slots inside the recovery window that never ran', missed, 'must be 0'),
    line(`runs dispatched by an instance past its lease (of ${f.leases.checked})`, past, 'must be 0'),
    line('  smallest margin before the next holder acquired', ms(f.leases.minMarginMs ?? NaN), 'reference'),
    line(
      `acts of the active logged past its lease (of ${f.acts.checked})`,
      f.acts.violations.length,
      'must be 0',
    ),
    line('  logged late only because SIGSTOP paused the process', f.acts.excusedByPause, 'reference'),
    ...(f.fence
      ? [
          line(
            `runs the database took from a deposed instance (of ${f.fence.checked})`,
            f.fence.deposedInserts.length,
            'must be 0',
          ),
          line('writes the database refused (logged by the scheduler)', f.fence.refused, 'reference'),
          line('  of which logged by the lock holder of that time', f.fence.refusedFromHolder, 'reference'),
          line(
            'runs failed "never started" although their step ran',
            f.fence.misrecorded.length,
            'reference',
          ),
        ]
      : []),
    line('runs left running or queued with no live owner', f.ownerless.length, 'must be 0'),
    line('lock epochs with no acquisition record', f.missingEpochs.length, 'must be 0'),
    line('lock epochs acquired out of time order', f.epochsOutOfOrder.length, 'must be 0'),
    line('clean stops not exiting 0, fenced actives not exiting non-zero', f.badExits.length, 'must be 0'),
    line('cycles the cluster did not recover from within 60 s', unrecovered, 'must be 0'),
    line('  fault -> every member up and one active: max', ms(Math.max(...recovery)), 'reference'),
  ];
  for (const how of ['stale', 'released'] as const) {
    const g = f.failovers.byHow.get(how)!;
    lines.push(
      line(
        `failovers, ${how === 'stale' ? 'takeover of a stale lock' : 'after a clean release'}`,
        g.renewalGap.count,
        'reference',
      ),
    );
    lines.push(gapLine('  gap: last renewal -> acquired', g.renewalGap));
    lines.push(gapLine('  gap: fault injected -> acquired', g.faultToAcquired));
  }
  const failures: string[] = [];
  for (const d of f.slots.duplicates)
    failures.push(`slot ran more than once: ${d.dag} ${d.slot} (${d.runs.join(', ')})`);
  for (const m of f.slots.unexplained) failures.push(`slot never ran: ${m.dag} ${m.slot}: ${m.record}`);
  for (const v of f.leases.violations)
    failures.push(
      `dispatched past its lease: ${v.runId} by ${v.dispatchedBy} at ${v.createdAt} (holder: pid ${v.holderPid}, epoch ${v.holderEpoch})`,
    );
  for (const v of f.acts.violations)
    failures.push(
      `act logged past its lease: "${v.msg}" ${v.runId} by pid ${v.pid} at ${new Date(v.timeMs).toISOString()} (holder: pid ${v.holderPid})`,
    );
  for (const d of f.fence?.deposedInserts ?? [])
    failures.push(
      `the database took a run attempt from a deposed instance: ${d.runId} attempt ${d.attempt} by ${d.by} at ${new Date(d.atMs).toISOString()} (holder: pid ${d.holderPid})`,
    );
  for (const o of f.ownerless)
    failures.push(`no live owner: ${o.runId} ${o.status} attempt ${o.attempt}: ${o.why}`);
  for (const e of f.missingEpochs) failures.push(`lock epoch ${e} has no acquisition record`);
  for (const e of f.epochsOutOfOrder) failures.push(`lock epoch ${e} was acquired before the epoch below it`);
  failures.push(...f.badExits);
  for (const c of f.cycles.filter((x) => x.recoveredMs === null))
    failures.push(`cycle ${c.cycle} (${c.kind}) did not recover within 60 s`);
  const skips = f.slots.skippedSlots.map((s) => `${s.dag} ${s.slot}: ${s.why}`);
  for (const m of f.fence?.misrecorded ?? []) lines.push(`  misrecorded: ${m}`);
  return { lines, failures, skips };
}
