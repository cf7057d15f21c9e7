import { describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock';
import type { Logger } from '../core/ports';
import { silentLogger } from '../core/ports';
import { MemoryEventLog } from '../store/memoryEventLog';
import { testRunStatus } from '../testing/testRunStatus';
import type { EventRecord } from '../store/types';
import { ConsoleCache } from './consoleCache';
import { LogEventFeed, type EventFeed } from './eventFeed';

describe('ConsoleCache', () => {
  it('feeds role events to the failover history and run events to the record cache', async () => {
    const log = new MemoryEventLog({ clock: systemClock });
    const cache = new ConsoleCache(new LogEventFeed(log));
    await log.append('scheduler.lock.acquired', { instance: 'a', how: 'fresh', previous_instance: null });
    await cache.sync();
    expect(cache.failovers.list().map((f) => f.to_instance)).toEqual(['a']);

    const reads: string[] = [];
    const runs = {
      async readStatus(runId: string) {
        reads.push(runId);
        return { kind: 'ok' as const, status: testRunStatus({ run_id: runId }) };
      },
    };
    await cache.runs.get(runs, ['r1', 'r2'], 0);
    await log.append('dag.run.running', { run_id: 'r1' });
    await cache.sync();
    await cache.runs.get(runs, ['r1', 'r2'], 1);
    expect(reads.sort()).toEqual(['r1', 'r1', 'r2']);
  });

  it('shares one read between calls that overlap', async () => {
    let reads = 0;
    let release = () => {};
    const feed: EventFeed = {
      async read() {
        reads += 1;
        await new Promise<void>((r) => (release = r));
        return [];
      },
    };
    const cache = new ConsoleCache(feed);
    const a = cache.sync();
    const b = cache.sync();
    release();
    await Promise.all([a, b]);
    expect(reads).toBe(1);
  });

  it('keeps answering when the log cannot be read, and says so once per error', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (msg, fields) => warnings.push(`${msg}: ${String(fields?.error)}`),
    };
    let fail = true;
    const event: EventRecord = {
      id: '1795914870000-0001abcdef',
      type: 'scheduler.lock.acquired',
      time: '2026-11-30T01:14:30.000Z',
      data: { instance: 'a', how: 'fresh' },
    };
    const feed: EventFeed = {
      async read() {
        if (fail) throw new Error('EACCES: permission denied');
        return [event];
      },
    };
    const cache = new ConsoleCache(feed, logger);
    await cache.sync();
    await cache.sync();
    expect(warnings).toEqual(['Could not read the event log: EACCES: permission denied']);
    fail = false;
    await cache.sync();
    expect(cache.failovers.list()).toHaveLength(1);
  });
});
