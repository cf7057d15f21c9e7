import { describe, expect, it } from 'vitest';
import { claimOwnerText, parseClaimOwner } from './claimOwner';

const AT = Date.parse('2026-11-30T01:15:02.500Z');

describe('claim owners', () => {
  it('reads back the host, pid and time a claim was made with', () => {
    const text = claimOwnerText('sched-a.example', 4242, AT);
    expect(text).toBe('sched-a.example:4242@2026-11-30T01:15:02.500Z');
    expect(parseClaimOwner(text)).toEqual({ host: 'sched-a.example', pid: 4242, claimedAtMs: AT, text });
  });

  it('reads a claim made before the time was recorded as one without a time', () => {
    expect(parseClaimOwner('host-a:101')).toEqual({
      host: 'host-a',
      pid: 101,
      claimedAtMs: null,
      text: 'host-a:101',
    });
  });

  it('keeps only the text of a claim of another shape', () => {
    expect(parseClaimOwner('p1')).toEqual({ host: null, pid: null, claimedAtMs: null, text: 'p1' });
    expect(parseClaimOwner('h:12@not-a-time').claimedAtMs).toBeNull();
  });
});
