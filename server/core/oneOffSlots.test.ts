import { describe, expect, it } from 'vitest';
import { parseDag } from './dag/parseDag';
import { hasOneOff, planOneOffs, withoutOneOff } from './oneOffSlots';
import type { DagSpec } from './types';
import { MINUTE } from './units';

function dag(name: string, schedule: string): DagSpec {
  const r = parseDag(`schedule: ${schedule}\nsteps:\n  - run: echo x\n`, {
    file: `/d/${name}.yaml`,
    defaultName: name,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.dag;
}

const T = Date.parse('2026-12-24T08:00:00Z');
const xmas = dag('xmas', '[{at: "2026-12-24T09:00:00+01:00"}]');

describe('planOneOffs', () => {
  it('makes a future time pending, and due from its time on', () => {
    const before = planOneOffs([xmas], {}, T - MINUTE);
    expect(before).toEqual({ pending: { xmas: [T] }, due: [], changed: true });
    expect(planOneOffs([xmas], before.pending, T)).toEqual({
      pending: { xmas: [T] },
      due: [{ dag: 'xmas', slotMs: T }],
      changed: false,
    });
    // However late (a restart, a failover, a busy DAG): still due while pending.
    expect(planOneOffs([xmas], before.pending, T + 3 * 24 * 60 * MINUTE).due).toEqual([
      { dag: 'xmas', slotMs: T },
    ]);
  });

  it('makes a time first seen at its very instant pending and due', () => {
    expect(planOneOffs([xmas], {}, T).due).toEqual([{ dag: 'xmas', slotMs: T }]);
  });

  it('never makes a time first seen after it passed pending', () => {
    expect(planOneOffs([xmas], {}, T + 1)).toEqual({ pending: {}, due: [], changed: false });
  });

  it('is done with a slot once it is removed from pending', () => {
    const pending = withoutOneOff({ xmas: [T] }, 'xmas', T);
    expect(pending).toEqual({});
    expect(planOneOffs([xmas], pending, T + MINUTE).due).toEqual([]);
  });

  it('drops pending slots whose entry or DAG is gone, and slots of an edited time', () => {
    const moved = dag('xmas', '[{at: "2026-12-24T10:00:00+01:00"}]');
    expect(planOneOffs([moved], { xmas: [T], gone: [T] }, T + 1)).toEqual({
      pending: { xmas: [T + 60 * MINUTE] },
      due: [],
      changed: true,
    });
  });

  it('leaves cron entries alone in a mixed list, and lists due slots oldest first', () => {
    const mixed = dag('mixed', '["0 * * * *", {at: "2026-12-24T07:00:00Z"}, {at: "2026-12-24T08:00:00Z"}]');
    const r = planOneOffs([xmas, mixed], { mixed: [T - 60 * MINUTE, T], xmas: [T] }, T);
    expect(r.due).toEqual([
      { dag: 'mixed', slotMs: T - 60 * MINUTE },
      { dag: 'mixed', slotMs: T },
      { dag: 'xmas', slotMs: T },
    ]);
    expect(r.changed).toBe(false);
    expect(hasOneOff(mixed)).toBe(true);
    expect(hasOneOff(dag('cron', '"0 * * * *"'))).toBe(false);
  });

  it('keeps one slot for two entries with the same time', () => {
    const twice = dag('twice', '[{at: "2026-12-24T08:00:00Z"}, {kind: at, at: "2026-12-24T09:00:00+01:00"}]');
    expect(planOneOffs([twice], {}, T - 1).pending).toEqual({ twice: [T] });
  });
});
