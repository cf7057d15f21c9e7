// LISTEN/NOTIFY wake-ups on a real PostgreSQL: delivered at commit and never after a rollback, and a
// listener that loses its connection (the server crashes, or stalls so that nothing answers) reconnects by
// itself and asks its caller to resync, since notifications sent meanwhile are gone.

import { describe, expect, it } from 'vitest';
import { systemTimers } from '../../../server/core/clock';
import { notify, WakeupListener, type WakeupChannel } from '../../../server/store/postgres/pgWakeups';
import { inTransaction } from '../../../server/store/postgres/transaction';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();

interface Heard {
  notes: Array<{ channel: WakeupChannel; payload: string }>;
  resyncs: number;
}

function listen(over: { heartbeatMs?: number; heartbeatTimeoutMs?: number } = {}) {
  const heard: Heard = { notes: [], resyncs: 0 };
  const listener = new WakeupListener({
    connection: pg().cluster.url,
    channels: ['dagu_queue', 'dagu_runs'],
    onNotify: (channel, payload) => heard.notes.push({ channel, payload }),
    onResync: () => heard.resyncs++,
    timers: systemTimers,
    logger: new RecordingLogger(),
    heartbeatMs: over.heartbeatMs ?? 200,
    heartbeatTimeoutMs: over.heartbeatTimeoutMs ?? 500,
    minBackoffMs: 50,
    maxBackoffMs: 400,
  });
  listener.start();
  return { listener, heard };
}

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('wake-ups with LISTEN/NOTIFY', () => {
  it('delivers a notification at commit, never one of a rolled-back transaction', async () => {
    const { listener, heard } = listen();
    try {
      await waitFor(() => listener.isListening());
      expect(heard.resyncs).toBe(1);
      await expect(
        inTransaction(pg().pool, async (c) => {
          await notify(c, 'dagu_queue', 'rolled-back');
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await inTransaction(pg().pool, (c) => notify(c, 'dagu_queue', 'run-1'));
      await waitFor(() => heard.notes.length > 0);
      // A channel it does not listen on is not heard; the other is.
      await inTransaction(pg().pool, (c) => notify(c, 'dagu_dispatch', 'elsewhere'));
      await inTransaction(pg().pool, (c) => notify(c, 'dagu_runs', 'run-2'));
      await waitFor(() => heard.notes.length >= 2);
      expect(heard.notes).toEqual([
        { channel: 'dagu_queue', payload: 'run-1' },
        { channel: 'dagu_runs', payload: 'run-2' },
      ]);
      await expect(
        inTransaction(pg().pool, (c) => notify(c, 'dagu_queue', 'x'.repeat(8000))),
      ).rejects.toThrow(/at most 7999 bytes/);
    } finally {
      await listener.stop();
    }
  });

  it('reconnects after the server crashes and restarts, and asks for a resync', async () => {
    const { listener, heard } = listen();
    try {
      await waitFor(() => listener.isListening());
      await pg().cluster.crash();
      await waitFor(() => !listener.isListening());
      await pg().cluster.start();
      await waitFor(() => listener.isListening() && heard.resyncs === 2);
      await inTransaction(pg().pool, (c) => notify(c, 'dagu_queue', 'after-restart'));
      await waitFor(() => heard.notes.some((n) => n.payload === 'after-restart'));
    } finally {
      await listener.stop();
    }
  });

  it('throws away a connection that stops answering, and listens again once the server does', async () => {
    const { listener, heard } = listen({ heartbeatMs: 100, heartbeatTimeoutMs: 300 });
    try {
      await waitFor(() => listener.isListening());
      await pg().cluster.freeze();
      try {
        // No socket error comes from a stalled server: only the heartbeat's own deadline finds it.
        await waitFor(() => !listener.isListening());
      } finally {
        await pg().cluster.thaw();
      }
      await waitFor(() => listener.isListening() && heard.resyncs >= 2);
      await inTransaction(pg().pool, (c) => notify(c, 'dagu_runs', 'after-stall'));
      await waitFor(() => heard.notes.some((n) => n.payload === 'after-stall'));
    } finally {
      await listener.stop();
    }
  });
});
