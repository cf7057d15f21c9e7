import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/loadConfig';
import type { RunStatus } from '../../core/types';
import type { UnwrittenFinalStatus } from '../../store/types';
import { FakeTime, settle } from '../../testing/fakeTime';
import { testRunStatus } from '../../testing/testRunStatus';
import { awaitStop, notStoppedMessage, stopWaitMs, type StopOutcome } from './awaitStop';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'dagu-await-stop-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** The default settings: a 5 s kill grace, a 45 s stale threshold, so a 30 s final-status retry. */
const defaults = () => loadConfig({ home, env: { NODE_ENV: 'test' } });

const HOST = 'host-a';
const PID = 4242;

/** A run being stopped on this host, whose record and process change when the test says. */
class World {
  time = new FakeTime(Date.parse('2026-03-01T10:00:00.000Z'));
  status: RunStatus;
  alive = true;
  note: UnwrittenFinalStatus | null = null;
  constructor(over: Partial<RunStatus> = {}) {
    this.status = testRunStatus({ run_id: 'r1', status: 'running', pid: PID, host: HOST, ...over });
  }
  deps() {
    return {
      readRun: async () => this.status,
      readUnwrittenFinalStatus: async () => this.note,
      processAlive: (pid: number) => pid === PID && this.alive,
      host: HOST,
      clock: this.time,
      timers: this.time,
    };
  }
  /** Starts the wait; its outcome, once settled. */
  wait(waitMs: number) {
    let outcome: StopOutcome | null = null;
    void awaitStop(this.deps(), this.status, waitMs).then((o) => (outcome = o));
    return () => outcome;
  }
}

describe('awaitStop (dagu restart)', () => {
  it('waits out the final-status budget: a run whose end is written 35 s after the stop has stopped', async () => {
    const config = defaults();
    // Kill grace, then the logs' flush (10 s) and the final status's retries (30 s), with some slack.
    expect(stopWaitMs(config)).toBeGreaterThanOrEqual(config.run.kill_grace_ms + 40_000);
    const w = new World();
    const outcome = w.wait(stopWaitMs(config));
    await w.time.advance(35_000);
    expect(outcome()).toBeNull();
    w.status = { ...w.status, status: 'aborted', finished_at: '2026-03-01T10:00:35.000Z' };
    await w.time.advance(1_000);
    expect(outcome()).toMatchObject({ kind: 'stopped', status: { status: 'aborted' } });
  });

  it('says the run stopped but its end was not written when its process exits without writing it', async () => {
    const w = new World();
    w.note = { state: 'aborted', error_code: 'ENOSPC' };
    const outcome = w.wait(stopWaitMs(defaults()));
    await w.time.advance(20_000);
    expect(outcome()).toBeNull();
    w.alive = false;
    await w.time.advance(1_000);
    const o = outcome();
    expect(o).toMatchObject({ kind: 'unwritten', pid: PID, note: w.note });
    const message = notStoppedMessage('r1', o as Exclude<StopOutcome, { kind: 'stopped' }>);
    expect(message).toBe(
      `run r1 stopped: its process ${PID} exited after the run ended aborted, but its final status could ` +
        'not be written (ENOSPC: no space left on device); it shows running until the dead-run check marks ' +
        'it failed; not restarting',
    );
    expect(message).not.toContain('did not stop');
  });

  it('is stopped when the process wrote its end just before it exited', async () => {
    const w = new World();
    const d = w.deps();
    let reads = 0;
    // What the caller read before the exit says running; the read after the exit sees the end.
    d.readRun = async () => (reads++, { ...w.status, status: 'aborted' });
    w.alive = false;
    const o = await awaitStop(d, w.status, 60_000);
    expect(reads).toBe(1);
    expect(o).toMatchObject({ kind: 'stopped', status: { status: 'aborted' } });
  });

  it('times out when the process still runs, and says so', async () => {
    const w = new World();
    const outcome = w.wait(30_000);
    await w.time.advance(29_000);
    expect(outcome()).toBeNull();
    await w.time.advance(2_000);
    await settle();
    const o = outcome();
    expect(o).toMatchObject({ kind: 'timeout', alive: true, waitedMs: 30_000 });
    expect(notStoppedMessage('r1', o as Exclude<StopOutcome, { kind: 'stopped' }>)).toBe(
      `run r1 did not stop within 30s: its process ${PID} is still running; not restarting`,
    );
  });

  it('judges a run on a worker by its record alone: a local pid of that number is not its process', async () => {
    const w = new World({ worker_id: 'w1' });
    w.alive = false;
    const outcome = w.wait(10_000);
    await w.time.advance(11_000);
    const o = outcome();
    expect(o).toMatchObject({ kind: 'timeout', alive: null });
    expect(notStoppedMessage('r1', o as Exclude<StopOutcome, { kind: 'stopped' }>)).toBe(
      'run r1 did not stop within 10s: it has not recorded its end (still running); not restarting',
    );
  });
});
