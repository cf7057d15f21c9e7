import { describe, expect, it } from 'vitest';
import { RunLocks } from './runLocks';

describe('RunLocks', () => {
  it('runs the holders of one key one after another, and of different keys side by side', async () => {
    const locks = new RunLocks();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));

    const first = locks.with('run-1', async () => {
      order.push('first start');
      await firstHeld;
      order.push('first end');
    });
    const second = locks.with('run-1', async () => {
      order.push('second');
    });
    const other = locks.with('run-2', async () => {
      order.push('other');
    });
    await other;
    expect(order).toEqual(['first start', 'other']);
    releaseFirst();
    await Promise.all([first, second]);

    expect(order).toEqual(['first start', 'other', 'first end', 'second']);
  });

  it('lets the next holder in after a holder throws', async () => {
    const locks = new RunLocks();

    await expect(locks.with('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');

    expect(await locks.with('k', async () => 42)).toBe(42);
  });
});
