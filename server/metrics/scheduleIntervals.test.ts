import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySuspendFlags } from '../store/memorySuspendFlags';
import { ScheduleIntervals, WORK_BUDGET_MS } from './scheduleIntervals';

let dir: string;
let flags: MemorySuspendFlags;
let mono = 0;
const clock = { nowMs: () => Date.parse('2026-11-30T01:14:30Z'), monoMs: () => mono };

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dagu-intervals-'));
  flags = new MemorySuspendFlags();
  mono = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const dag = (name: string, schedule: string | null) =>
  writeFileSync(
    path.join(dir, `${name}.yaml`),
    `${schedule ? `schedule: "${schedule}"\n` : ''}steps:\n  - command: "true"\n`,
  );

describe('ScheduleIntervals', () => {
  it('gives each scheduled DAG its interval in seconds, and none to a DAG without a schedule or suspended', async () => {
    dag('nightly', '0 3 * * *');
    dag('weekdays', '0 9 * * 1-5');
    dag('manual', null);
    dag('paused', '*/5 * * * *');
    await flags.suspend({ dag: 'paused', suspended_at: '2026-11-30T01:00:00Z', by: 'cli' });
    const s = await new ScheduleIntervals(dir, flags, clock).current();
    expect(s.names).toEqual(['manual', 'nightly', 'paused', 'weekdays']);
    expect(Object.fromEntries(s.intervals)).toEqual({ nightly: 86_400, weekdays: 3 * 86_400 });
  });

  it('spends at most its budget a scrape, and fills in the rest on the next ones', async () => {
    dag('a', '0 * * * *');
    dag('b', '*/10 * * * *');
    const intervals = new ScheduleIntervals(
      dir,
      { names: async () => new Set<string>() },
      {
        ...clock,
        // Each look at the clock finds half the budget gone: one DAG is worked out per scrape.
        monoMs: () => (mono += WORK_BUDGET_MS / 2 + 1),
      },
    );
    const first = await intervals.current();
    expect(first.names).toEqual(['a', 'b']);
    expect(Object.fromEntries(first.intervals)).toEqual({ a: 3600 });
    expect(Object.fromEntries((await intervals.current()).intervals)).toEqual({ a: 3600, b: 600 });
  });
});
