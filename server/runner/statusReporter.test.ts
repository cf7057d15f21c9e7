import { describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from '../core/clock';
import { silentLogger, type Logger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { RunStatus } from '../core/types';
import { storeReporter } from './statusReporter';
import { dagOf, stepOf } from './testSupport';

/** Real time, for the tests that do not pace the reporter. */
const realTime = { timers: systemTimers, nowMs: () => systemClock.nowMs() };

function statusWith(error: string | null): RunStatus {
  const s = newRunStatus({
    dag: dagOf([stepOf('a', 'true')]),
    runId: 'r1',
    status: 'running',
    triggerType: 'manual',
    scheduleTime: null,
    params: [],
    nowIso: '2026-01-01T00:00:00Z',
  });
  return { ...s, error };
}

/** A store whose writes wait until the test releases them, failing the ones listed in `failures`. */
function slowStore(failures: number[] = []) {
  const written: Array<string | null> = [];
  const heartbeats: number[] = [];
  const pending: Array<() => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  return {
    written,
    heartbeats,
    get maxInFlight() {
      return maxInFlight;
    },
    releaseAll() {
      while (pending.length) pending.shift()!();
    },
    async writeStatus(status: RunStatus) {
      const call = ++calls;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise<void>((resolve) => pending.push(resolve));
      inFlight--;
      if (failures.includes(call)) throw new Error(`disk full (call ${call})`);
      written.push(status.error);
    },
    async writeHeartbeat(_runId: string, _attempt: number, nowMs: number) {
      heartbeats.push(nowMs);
    },
  };
}

/** A store on a full disk: every status and heartbeat write fails. */
function fullThenFreedForHeartbeat() {
  const full = () => Promise.reject(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }));
  return { writeStatus: full, writeHeartbeat: full };
}

/** Releases pending store writes until `done` settles. */
async function drain(store: ReturnType<typeof slowStore>, done: Promise<void>) {
  let settled = false;
  void done.then(() => (settled = true));
  while (!settled) {
    store.releaseAll();
    await new Promise((r) => setImmediate(r));
  }
}

function warnings(): Logger & { messages: string[] } {
  const messages: string[] = [];
  return { ...silentLogger, messages, warn: (msg) => messages.push(msg), child: () => warnings() };
}

describe('storeReporter', () => {
  it('writes the changes of one burst once, even when they come in separate microtasks', async () => {
    const store = slowStore();
    const reporter = storeReporter(store, silentLogger, realTime);
    const first = reporter.write(statusWith('1'));
    await Promise.resolve();
    void reporter.write(statusWith('2'));
    await Promise.resolve();
    const last = reporter.write(statusWith('3'));
    await drain(
      store,
      Promise.all([first, last]).then(() => {}),
    );

    expect(store.written).toEqual(['3']);
  });

  it('never writes two statuses at once and skips snapshots superseded while a write was in flight', async () => {
    const store = slowStore();
    const reporter = storeReporter(store, silentLogger, realTime);
    const first = reporter.write(statusWith('1'));
    while (store.maxInFlight === 0) await new Promise((r) => setImmediate(r)); // '1' is now in flight
    void reporter.write(statusWith('2'));
    const last = reporter.write(statusWith('3'));
    await drain(
      store,
      Promise.all([first, last]).then(() => {}),
    );

    expect(store.maxInFlight).toBe(1);
    expect(store.written).toEqual(['1', '3']);
  });

  it('writes the status as it was when write was called, not as it is later', async () => {
    const store = slowStore();
    const reporter = storeReporter(store, silentLogger, realTime);
    const status = statusWith('before');
    const done = reporter.write(status);
    status.error = 'after';
    await drain(store, done);

    expect(store.written).toEqual(['before']);
  });

  it('logs a failed write without rejecting and writes the status again on the next change', async () => {
    const store = slowStore([1]);
    const logger = warnings();
    const reporter = storeReporter(store, logger, realTime);
    await drain(store, reporter.write(statusWith('lost')));
    expect(store.written).toEqual([]);
    expect(logger.messages).toEqual(['Failed to write run status; will retry on the next change']);

    await drain(store, reporter.write(statusWith('next')));
    expect(store.written).toEqual(['next']);
  });

  it('retries a failed status write on the next heartbeat and writes the heartbeat for the run', async () => {
    const store = slowStore([1]);
    const reporter = storeReporter(store, silentLogger, realTime);
    await drain(store, reporter.write(statusWith('final')));
    await drain(store, reporter.heartbeat(1234));

    expect(store.written).toEqual(['final']);
    expect(store.heartbeats).toEqual([1234]);
  });

  describe('settle', () => {
    /** A store failing the first `failures` status writes with ENOSPC, then taking them; no waiting. */
    function fullThenFreed(failures: number) {
      const written: Array<string | null> = [];
      const heartbeats: number[] = [];
      let calls = 0;
      return {
        written,
        heartbeats,
        async writeStatus(status: RunStatus) {
          if (++calls <= failures)
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          written.push(status.error);
        },
        async writeHeartbeat(_runId: string, _attempt: number, nowMs: number) {
          heartbeats.push(nowMs);
        },
      };
    }
    /** Timers that fire on the next macrotask and add up the delays they were asked for. */
    function quickTimers() {
      const asked: number[] = [];
      return {
        asked,
        setTimeout(fn: () => void, ms: number) {
          asked.push(ms);
          return { id: setTimeout(fn, 0) };
        },
        clearTimeout(handle: { id: unknown }) {
          clearTimeout(handle.id as ReturnType<typeof setTimeout>);
        },
      };
    }

    it('writes the final status again, heartbeating in between, until it is on disk', async () => {
      const store = fullThenFreed(4);
      const timers = quickTimers();
      const reporter = storeReporter(store, silentLogger, { timers, nowMs: () => 42 });
      await reporter.write(statusWith('final'));
      expect(store.written).toEqual([]);

      expect(await reporter.settle(10_000)).toEqual({ written: true });
      expect(store.written).toEqual(['final']);
      expect(store.heartbeats.length).toBeGreaterThanOrEqual(2);
      expect(store.heartbeats.every((ms) => ms === 42)).toBe(true);
      // Backing off: each pause at least as long as the one before.
      expect(timers.asked).toEqual([...timers.asked].sort((a, b) => a - b));
    });

    it('gives up after about timeoutMs with the last error when the disk stays full', async () => {
      const store = fullThenFreed(Infinity);
      const timers = quickTimers();
      const reporter = storeReporter(store, silentLogger, { timers, nowMs: () => systemClock.nowMs() });
      void reporter.write(statusWith('final'));

      const outcome = await reporter.settle(5000);
      expect(outcome.written).toBe(false);
      expect(!outcome.written && outcome.error).toMatchObject({ code: 'ENOSPC' });
      expect(timers.asked.reduce((a, b) => a + b, 0)).toBe(5000);
      expect(Math.max(...timers.asked)).toBeLessThanOrEqual(2000);
    });

    it('counts the time its tries take, so a store that answers only at its timeout does not stretch the budget', async () => {
      // Each status write fails after 1.5 s (a stalled database answering at its statement timeout).
      let now = 0;
      let tries = 0;
      const store = {
        async writeStatus() {
          tries++;
          now += 1500;
          throw new Error('Query read timeout');
        },
        async writeHeartbeat() {},
      };
      const timers = {
        setTimeout(fn: () => void, ms: number) {
          now += ms;
          return { id: setTimeout(fn, 0) };
        },
        clearTimeout(handle: { id: unknown }) {
          clearTimeout(handle.id as ReturnType<typeof setTimeout>);
        },
      };
      const reporter = storeReporter(store, silentLogger, { timers, nowMs: () => now });
      void reporter.write(statusWith('final'));

      expect((await reporter.settle(5000)).written).toBe(false);
      // Over by at most the one try under way when the budget ran out.
      expect(now).toBeLessThanOrEqual(5000 + 1500);
      expect(tries).toBe(4);
    });

    it('returns at once when everything is written already', async () => {
      const store = fullThenFreed(0);
      const timers = quickTimers();
      const reporter = storeReporter(store, silentLogger, { timers, nowMs: () => systemClock.nowMs() });
      await reporter.write(statusWith('final'));
      expect(await reporter.settle(5000)).toEqual({ written: true });
      expect(timers.asked).toEqual([]);
    });
  });

  it('logs failed writes without adding a run_id of its own (its logger carries the run ID already)', async () => {
    const fields: Array<Record<string, unknown>> = [];
    const logger: Logger = { ...silentLogger, warn: (_m, f) => fields.push(f ?? {}), child: () => logger };
    const store = fullThenFreedForHeartbeat();
    const reporter = storeReporter(store, logger, realTime);
    await reporter.write(statusWith('lost'));
    await reporter.heartbeat(1);
    expect(fields.length).toBe(3);
    for (const f of fields) expect(Object.keys(f)).not.toContain('run_id');
  });

  describe('with settleMs', () => {
    /** Timers that fire only when the test says so. */
    function manualTimers() {
      const due = new Map<number, () => void>();
      let next = 0;
      return {
        pending: () => due.size,
        fireAll() {
          const fns = [...due.values()];
          due.clear();
          for (const fn of fns) fn();
        },
        setTimeout(fn: () => void) {
          const id = next++;
          due.set(id, fn);
          return { id };
        },
        clearTimeout(handle: { id: unknown }) {
          due.delete(handle.id as number);
        },
      };
    }
    const withState = (state: RunStatus['status'], error: string | null) => ({
      ...statusWith(error),
      status: state,
    });
    const turns = async (n = 3) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };

    it('holds a change of steps back until settleMs passed, then writes the newest one', async () => {
      const store = slowStore();
      const timers = manualTimers();
      const reporter = storeReporter(store, silentLogger, {
        settleMs: 100,
        written: 'running',
        timers,
        nowMs: () => systemClock.nowMs(),
      });
      const first = reporter.write(withState('running', 'step a started'));
      void reporter.write(withState('running', 'step b started'));
      await turns();
      store.releaseAll();
      await turns();
      expect(store.written).toEqual([]);
      expect(timers.pending()).toBe(1);
      timers.fireAll();
      await drain(store, first);
      expect(store.written).toEqual(['step b started']);
    });

    it('writes a change of the run state at once, with the held-back changes before it', async () => {
      const store = slowStore();
      const timers = manualTimers();
      const reporter = storeReporter(store, silentLogger, {
        settleMs: 100,
        written: 'running',
        timers,
        nowMs: () => systemClock.nowMs(),
      });
      void reporter.write(withState('running', 'step started'));
      await turns();
      const end = reporter.write(withState('succeeded', 'ended'));
      await drain(store, end);
      expect(store.written).toEqual(['ended']);
      expect(timers.pending()).toBe(0);
    });

    it('writes the first status at once when the run state on disk is another (a queued run starting)', async () => {
      const store = slowStore();
      const timers = manualTimers();
      const reporter = storeReporter(store, silentLogger, {
        settleMs: 100,
        written: 'queued',
        timers,
        nowMs: () => systemClock.nowMs(),
      });
      await drain(store, reporter.write(withState('running', 'started')));
      expect(store.written).toEqual(['started']);
      expect(timers.pending()).toBe(0);
      // Now on disk as running: the next change of steps waits.
      void reporter.write(withState('running', 'step started'));
      await turns();
      expect(timers.pending()).toBe(1);
    });
  });
});
