import { describe, expect, it } from 'vitest';
import { standbyCount, takeoverText } from './standbyText';

describe('standbyCount', () => {
  it('counts standbys and starting instances, not stopped or lost ones', () => {
    const roles = ['standby', 'starting', 'stopped', 'lost', 'standby'] as const;
    expect(standbyCount(roles.map((role) => ({ role })))).toBe(3);
    expect(standbyCount([{ role: 'lost' }])).toBe(0);
  });
});

describe('takeoverText', () => {
  it('says when the one standby takes over', () => {
    expect(takeoverText(1, '20s')).toBe(
      'The standby takes over at most 20s (T + 2R) after the last renewal.',
    );
  });

  it('says one of several standbys takes over', () => {
    expect(takeoverText(3, '1m0s')).toBe(
      'One of the 3 standbys takes over at most 1m0s (T + 2R) after the last renewal.',
    );
  });

  it('has nothing to promise without a standby', () => {
    expect(takeoverText(0, '20s')).toBeNull();
  });
});
