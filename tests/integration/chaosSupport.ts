// What the chaos soak tests (chaos.test.ts, postgres/chaos.test.ts) share: a seeded soak whose report is
// printed and whose failures fail the test, and the figures that show the soak exercised anything at all.

import { expect } from 'vitest';
import { runSoak, type SoakOptions, type SoakResult } from '../../bench/chaos/soak';

export interface ReportedSoak {
  result: SoakResult;
  /** The progress lines, the figures and the skips: the message of every later expectation. */
  report: string;
}

/**
 * Runs a soak with the seed DAGU_CHAOS_SEED names (a random one otherwise), keeping its temp tree as `o.keep`
 * says (always under DAGU_CHAOS_KEEP=1), prints its report and fails
 * the test, naming the seed to replay, if any must-be-0 figure is not 0.
 */
export async function runReportedSoak(o: Omit<SoakOptions, 'seed' | 'log'>): Promise<ReportedSoak> {
  const seed = Number(process.env.DAGU_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const progress: string[] = [];
  // DAGU_CHAOS_KEEP=1 keeps the temp tree of a soak that passes too: a replay of a failed seed often does.
  const keep = process.env.DAGU_CHAOS_KEEP === '1' ? true : o.keep;
  const result = await runSoak({ ...o, keep, seed, log: (l) => progress.push(l) });
  const report = [
    ...progress,
    '',
    ...result.lines,
    ...result.skips.map((s) => `skipped by design: ${s}`),
  ].join('\n');
  // The failures come first, in the log and in the message: a shortened CI log still names them.
  if (result.failures.length > 0)
    console.log(`FAILED (seed ${seed}):\n${result.failures.map((f) => `  ${f}`).join('\n')}\n`);
  console.log(report);

  expect(result.failures, `seed ${seed}: ${result.failures.join('; ')}\n${report}`).toEqual([]);
  expect(result.figures.cycles).toHaveLength(o.cycles);
  return { result, report };
}

/**
 * The soak proves nothing unless most due slots ran through the faults and the faults moved the lock.
 * A slot skipped because the DAG's previous run was still active (the run store shows it) ran in all but
 * name: a stall of the store past a DAG's interval makes the next slot overlap, as the design says. So at
 * least 70 % of the due slots must have run or overlapped a run that did, and at least half must have run.
 */
export function expectSlotsRanAndLockMoved({ result, report }: ReportedSoak): void {
  const { slots, cycles, failovers } = result.figures;
  expect(slots.due, report).toBeGreaterThan(cycles.length);
  expect(slots.ran, report).toBeGreaterThanOrEqual(Math.ceil(slots.due * 0.5));
  const overlapped = slots.skipped.get('overlap') ?? 0;
  expect(slots.ran + overlapped, report).toBeGreaterThanOrEqual(Math.ceil(slots.due * 0.7));
  const moved = [...failovers.byHow.values()].reduce((n, g) => n + g.renewalGap.count, 0);
  expect(moved, report).toBeGreaterThan(0);
}
