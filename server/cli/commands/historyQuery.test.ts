import { describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../core/units';
import { formatElapsed, parseSpan, parseUtc, readHistoryFlags } from './historyQuery';

const NOW = Date.parse('2026-11-30T12:00:00Z');

describe('readHistoryFlags', () => {
  it('reads --labels (or its deprecated alias --tags) into filters, and refuses both at once', () => {
    const labels = readHistoryFlags({ labels: 'Env=Prod, critical,,' }, NOW);
    expect(labels.ok && labels.query.labelFilters).toEqual([
      { kind: 'exact', key: 'env', value: 'prod' },
      { kind: 'key', key: 'critical' },
    ]);
    const tags = readHistoryFlags({ tags: '!nightly' }, NOW);
    expect(tags.ok && tags.query.labelFilters).toEqual([{ kind: 'not', key: 'nightly' }]);
    expect(readHistoryFlags({ labels: 'a', tags: '' }, NOW)).toEqual({
      ok: false,
      error: 'labels and deprecated tags cannot both be set',
    });
  });

  it('looks back 30 days when no time is given, with a limit of 100', () => {
    const r = readHistoryFlags({}, NOW);
    expect(r).toEqual({
      ok: true,
      query: {
        fromMs: NOW - 30 * DAY,
        toMs: null,
        statuses: null,
        runIdPart: null,
        labelFilters: [],
        limit: 100,
        warning: null,
      },
    });
  });

  it('reads --from and --to as UTC dates or times, and refuses a window that ends before it starts', () => {
    const r = readHistoryFlags({ from: '2026-11-01', to: '2026-11-02T03:04:05Z' }, NOW);
    expect(r.ok && [r.query.fromMs, r.query.toMs]).toEqual([
      Date.parse('2026-11-01T00:00:00Z'),
      Date.parse('2026-11-02T03:04:05Z'),
    ]);
    expect(readHistoryFlags({ from: '2026-11-03', to: '2026-11-02' }, NOW)).toEqual({
      ok: false,
      error: '--from 2026-11-03 is after --to 2026-11-02',
    });
    expect(readHistoryFlags({ from: 'yesterday' }, NOW)).toMatchObject({
      ok: false,
      error: /--from "yesterday"/,
    });
  });

  it('reads --last as a span back from now, and not together with --from', () => {
    const r = readHistoryFlags({ last: '24h' }, NOW);
    expect(r.ok && r.query.fromMs).toBe(NOW - 24 * HOUR);
    expect(readHistoryFlags({ last: '7d', from: '2026-11-01' }, NOW)).toMatchObject({ ok: false });
    expect(readHistoryFlags({ last: '7x' }, NOW)).toMatchObject({ ok: false, error: /--last "7x"/ });
  });

  it("takes Dagu's status names and aliases; Dagu's not_started matches nothing; others are refused", () => {
    const r = readHistoryFlags({ status: 'Failed, cancelled,success,waiting,rejected' }, NOW);
    expect(r.ok && [...r.query.statuses!].sort()).toEqual([
      'aborted',
      'failed',
      'rejected',
      'succeeded',
      'waiting',
    ]);
    expect(readHistoryFlags({ status: 'broken' }, NOW)).toMatchObject({
      ok: false,
      error: /--status "broken"/,
    });
  });

  it('caps --limit at 1000 with a warning and refuses one below 1', () => {
    const r = readHistoryFlags({ limit: '5000' }, NOW);
    expect(r.ok && [r.query.limit, r.query.warning]).toEqual([1000, '--limit 5000 is capped at 1000']);
    expect(readHistoryFlags({ limit: '0' }, NOW)).toMatchObject({ ok: false });
    expect(readHistoryFlags({ limit: '2x' }, NOW)).toMatchObject({ ok: false });
  });
});

describe('time helpers', () => {
  it('parses UTC times in the three forms and rejects the rest', () => {
    expect(parseUtc('2026-01-31')).toBe(Date.parse('2026-01-31T00:00:00Z'));
    expect(parseUtc('2026-01-31T15:04:05')).toBe(Date.parse('2026-01-31T15:04:05Z'));
    expect(parseUtc('2026-01-31T15:04:05+02:00')).toBe(Date.parse('2026-01-31T13:04:05Z'));
    expect(parseUtc('31/01/2026')).toBeNull();
    expect(parseSpan('1w')).toBe(7 * DAY);
  });

  it('shows a duration with its two largest units, as Dagu does', () => {
    expect(formatElapsed(400)).toBe('< 1s');
    expect(formatElapsed(42_000)).toBe('42s');
    expect(formatElapsed(150_000)).toBe('2m30s');
    expect(formatElapsed(HOUR + 5 * 60_000 + 7_000)).toBe('1h5m');
    expect(formatElapsed(2 * DAY)).toBe('2d');
  });
});
