import { describe, expect, it } from 'vitest';
import { MemoryLockStorage } from './memorySchedulerLock';
import { schedulerLockContract } from './schedulerLock.contract';

schedulerLockContract('MemoryLockStorage', async () => new MemoryLockStorage());

describe('MemoryLockStorage', () => {
  it('reports a truncated record as corrupt with its raw text', async () => {
    const s = new MemoryLockStorage();
    s.raw = '{"version":1,"holder":"a"';
    const read = await s.read();
    expect(read).toMatchObject({ kind: 'corrupt', raw: '{"version":1,"holder":"a"' });
  });
});
