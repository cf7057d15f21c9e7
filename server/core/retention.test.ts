import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_DAYS, retentionPolicy, runsPastRetention } from './retention';
import { DAY } from './units';

const now = Date.UTC(2026, 11, 1);
const history = [
  { run_id: 'today', created_ms: now - 1000 },
  { run_id: 'week', created_ms: now - 7 * DAY },
  { run_id: 'month', created_ms: now - 31 * DAY },
  { run_id: 'year', created_ms: now - 365 * DAY },
];

describe('history retention', () => {
  it('keeps 30 days when neither key is set, or days is 0 (as Dagu)', () => {
    expect(retentionPolicy({})).toEqual({ kind: 'days', days: DEFAULT_RETENTION_DAYS });
    expect(retentionPolicy({ hist_retention_days: 0 })).toEqual({ kind: 'days', days: 30 });
    expect(runsPastRetention(history, retentionPolicy({}), now)).toEqual(['month', 'year']);
  });

  it('deletes runs older than hist_retention_days', () => {
    const policy = retentionPolicy({ hist_retention_days: 7 });
    // Exactly 7 days old is not older than 7 days.
    expect(runsPastRetention(history, policy, now)).toEqual(['month', 'year']);
    expect(runsPastRetention(history, policy, now + 1)).toEqual(['week', 'month', 'year']);
  });

  it('keeps only the newest hist_retention_runs runs, whatever their age', () => {
    const policy = retentionPolicy({ hist_retention_runs: 1, hist_retention_days: 400 });
    expect(policy).toEqual({ kind: 'runs', keep: 1 });
    expect(runsPastRetention(history, policy, now)).toEqual(['week', 'month', 'year']);
    expect(runsPastRetention(history, { kind: 'runs', keep: 10 }, now)).toEqual([]);
  });
});
