import { describe, expect, it } from 'vitest';
import { workerCountCard } from './workerCounts';

describe('workerCountCard', () => {
  it('counts every worker and names each state', () => {
    expect(workerCountCard({ healthy: 2, late: 1, lost: 1 })).toEqual({
      total: 4,
      label: 'workers',
      detail: '2 healthy · 1 late · 1 lost',
      warn: true,
    });
  });

  it('writes one worker in the singular and no warning while all are healthy', () => {
    expect(workerCountCard({ healthy: 1, late: 0, lost: 0 })).toMatchObject({ label: 'worker', warn: false });
    expect(workerCountCard({ healthy: 0, late: 0, lost: 0 })).toMatchObject({ total: 0, label: 'workers' });
  });

  it('warns about a lost worker alone', () => {
    expect(workerCountCard({ healthy: 0, late: 0, lost: 1 }).warn).toBe(true);
  });
});
