import { describe, expect, it } from 'vitest';
import { RUN_ID_PATTERN } from './names';
import { newRunId } from './runId';
import { formatSlot, parseSlotRunId, slotHash, slotRunId } from './slotRunId';

const at = (iso: string) => Date.parse(iso);

describe('formatSlot', () => {
  it('writes a whole-minute slot as YYYYMMDDTHHMMZ in UTC', () => {
    expect(formatSlot(at('2026-11-30T01:15:00Z'))).toBe('20261130T0115Z');
    expect(formatSlot(at('2026-01-02T03:04:00+09:00'))).toBe('20260101T1804Z');
  });

  it('adds the seconds when the slot is not on a whole minute', () => {
    expect(formatSlot(at('2026-11-30T01:15:07Z'))).toBe('20261130T011507Z');
  });

  it('drops milliseconds', () => {
    expect(formatSlot(at('2026-11-30T01:15:00.999Z'))).toBe('20261130T0115Z');
  });
});

describe('slotRunId', () => {
  const slot = at('2026-11-30T01:15:00Z');

  it('is sched-<12 hex>-<slot>, a valid run ID well under 64 characters', () => {
    const id = slotRunId('/srv/dagu/data', 'etl', slot);
    expect(id).toMatch(/^sched-[0-9a-f]{12}-20261130T0115Z$/);
    expect(id).toMatch(RUN_ID_PATTERN);
    expect(
      slotRunId('/srv/dagu/data', 'a'.repeat(64), at('2026-11-30T01:15:59Z')).length,
    ).toBeLessThanOrEqual(64);
  });

  it('hashes sha256 of the data directory and the DAG name joined by a NUL byte', () => {
    // sha256("/srv/dagu/data\0etl"), computed independently with `printf '/srv/dagu/data\0etl' | sha256sum`.
    expect(slotHash('/srv/dagu/data', 'etl')).toBe('be495ee79618');
  });

  it('is the same for the same data directory, DAG and slot, whoever computes it', () => {
    expect(slotRunId('/srv/dagu/data', 'etl', slot)).toBe(slotRunId('/srv/dagu/data', 'etl', slot));
  });

  it('differs between DAGs, data directories and slots', () => {
    const ids = new Set([
      slotRunId('/srv/dagu/data', 'etl', slot),
      slotRunId('/srv/dagu/data', 'etl2', slot),
      slotRunId('/srv/other/data', 'etl', slot),
      slotRunId('/srv/dagu/data', 'etl', slot + 60_000),
      slotRunId('/srv/dagu/data', 'etl', slot + 1000),
    ]);
    expect(ids.size).toBe(5);
  });

  it('does not let the separator be forged by moving characters between directory and name', () => {
    expect(slotHash('/a/b', 'c')).not.toBe(slotHash('/a', 'b/c'));
    expect(slotHash('/ab', 'c')).not.toBe(slotHash('/a', 'bc'));
  });
});

describe('parseSlotRunId', () => {
  it('takes a slot run ID apart, with and without seconds', () => {
    const hash = slotHash('/d', 'x');
    expect(parseSlotRunId(slotRunId('/d', 'x', at('2026-11-30T01:15:00Z')))).toEqual({
      hash,
      slotMs: at('2026-11-30T01:15:00Z'),
    });
    expect(parseSlotRunId(slotRunId('/d', 'x', at('2026-11-30T01:15:42Z')))?.slotMs).toBe(
      at('2026-11-30T01:15:42Z'),
    );
  });

  it('returns null for manual IDs, impossible dates and non-canonical spellings', () => {
    expect(parseSlotRunId('20261130-011500-1a2b3c4d')).toBeNull();
    expect(parseSlotRunId('sched-0123456789ab-20261332T0115Z')).toBeNull();
    expect(parseSlotRunId('sched-0123456789ab-20261130T2560Z')).toBeNull();
    expect(parseSlotRunId('sched-0123456789ab-20261130T011500Z')).toBeNull();
    expect(parseSlotRunId('sched-0123456789AB-20261130T0115Z')).toBeNull();
    expect(parseSlotRunId('sched-0123456789ab-20261130T0115')).toBeNull();
  });
});

describe('newRunId', () => {
  it('is the UTC time to the second followed by 8 hex digits of the given randomness', () => {
    expect(newRunId(at('2026-11-30T01:15:07.500Z'), '1A2B3C4D5E6F')).toBe('20261130-011507-1a2b3c4d');
  });

  it('sorts by creation time', () => {
    const earlier = newRunId(at('2026-11-30T01:15:07Z'), 'ffffffff');
    const later = newRunId(at('2026-11-30T01:15:08Z'), '00000000');
    expect([later, earlier].sort()).toEqual([earlier, later]);
  });

  it('is a valid run ID', () => {
    expect(newRunId(at('2026-11-30T01:15:07Z'), 'deadbeef')).toMatch(RUN_ID_PATTERN);
  });

  it('refuses randomness that is too short or not hex', () => {
    expect(() => newRunId(0, 'abc')).toThrow(RangeError);
    expect(() => newRunId(0, 'zzzzzzzz')).toThrow(/8 hex digits/);
  });
});
