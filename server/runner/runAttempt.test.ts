// A run's end on a full disk: the active marker goes only once the final status is written; otherwise the run
// stays marked for the dead-run check, a note says why, and the run process fails.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { systemClock, systemTimers } from '../core/clock';
import type { LogFields, Logger } from '../core/ports';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { MemoryRunStore } from '../store/memoryRunStore';
import { UnmarkingRunStore } from '../testing/unmarkingRunStore';
import { FinalStatusUnwrittenError } from './errors';
import { finalStatusRetryMs } from './runAttempt';
import { startRun } from './startRun';
import { dagOf, minimalEnv, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'dags'));
});
afterEach(() => cleanup());

const config = () =>
  loadConfig({
    home: dir,
    env: {
      NODE_ENV: 'test',
      DAGU_RUN_HEARTBEAT_INTERVAL: '50ms',
      DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '600ms',
    },
  });

/** A memory store whose disk is full for terminal statuses until `freeAfter` of their writes failed. */
class FullDiskStore extends MemoryRunStore {
  failedFinalWrites = 0;
  constructor(
    private readonly logRoot: string,
    private readonly freeAfter = Infinity,
  ) {
    super();
  }
  override async writeStatus(status: RunStatus): Promise<void> {
    if (TERMINAL_RUN_STATES.includes(status.status) && this.failedFinalWrites < this.freeAfter) {
      this.failedFinalWrites++;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return super.writeStatus(status);
  }
  override logDir(dagName: string, runId: string, attempt: number): string {
    return join(this.logRoot, dagName, runId, String(attempt));
  }
}

/** Every line logged, with the fields its logger was made with kept apart from the line's own. */
function bindingsLogger(
  lines: Array<{ msg: string; bound: LogFields; fields: LogFields }>,
  bound = {},
): Logger {
  const at = (msg: string, fields?: LogFields) => lines.push({ msg, bound, fields: fields ?? {} });
  return {
    debug: at,
    info: at,
    warn: at,
    error: at,
    child: (more) => bindingsLogger(lines, { ...bound, ...more }),
  };
}

function start(store: MemoryRunStore, logger: Logger) {
  return startRun({
    dag: dagOf([stepOf('work', 'true')]),
    runStore: store,
    config: config(),
    clock: systemClock,
    timers: systemTimers,
    logger,
    triggerType: 'manual',
    scheduleTime: null,
    params: [],
    newRunId: () => 'r1',
    signal: new AbortController().signal,
    env: minimalEnv(),
  });
}

describe('runAttempt on a full disk', () => {
  it('keeps the run active, leaves a note and fails when its final status cannot be written in time', async () => {
    const store = new FullDiskStore(join(dir, 'logs'));
    const lines: Array<{ msg: string; bound: LogFields; fields: LogFields }> = [];
    const began = Date.now();
    const err = await start(store, bindingsLogger(lines)).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(FinalStatusUnwrittenError);
    expect(err).toMatchObject({ runId: 'r1', attempt: 1, state: 'succeeded' });
    expect((err as Error).message).toBe(
      'run r1 ended succeeded, but its final status could not be written (ENOSPC: no space left on device, write); the active scheduler marks it failed once its heartbeat is stale',
    );
    // It tried for the stale threshold, no longer: the dead-run check takes over from there.
    expect(Date.now() - began).toBeGreaterThanOrEqual(finalStatusRetryMs(config()) - 50);
    expect(store.failedFinalWrites).toBeGreaterThan(3);
    expect(await store.listActive()).toEqual([{ run_id: 'r1', dag_name: 'test-dag', queue: 'test-dag' }]);
    expect(await store.readUnwrittenFinalStatus('r1', 1)).toEqual({
      state: 'succeeded',
      error_code: 'ENOSPC',
    });
    const read = await store.readStatus('r1');
    expect(read.kind === 'ok' && read.status.status).toBe('running');
    expect(lines.map((l) => l.msg)).toContain(
      'Gave up writing the final status; the run stays active for the dead-run check',
    );
    // No line names the run twice (once from its logger, once from the call).
    for (const l of lines) {
      const twice = Object.keys(l.fields).filter((k) => k in l.bound);
      expect(twice, l.msg).toEqual([]);
    }
  });

  it('writes the final status once space is back within the retry window, and only then unmarks the run', async () => {
    const store = new FullDiskStore(join(dir, 'logs'), 3);
    const final = await start(store, bindingsLogger([]));

    expect(final.status).toBe('succeeded');
    const read = await store.readStatus('r1');
    expect(read.kind === 'ok' && read.status.status).toBe('succeeded');
    expect(await store.listActive()).toEqual([]);
    expect(await store.readUnwrittenFinalStatus('r1', 1)).toBeNull();
  });

  it('tries for the stale threshold, at most 30 s', () => {
    const c = config();
    expect(finalStatusRetryMs(c)).toBe(600);
    expect(finalStatusRetryMs({ ...c, run: { ...c.run, heartbeat_stale_threshold_ms: 45_000 } })).toBe(
      30_000,
    );
  });
});

describe('runAttempt at the end of a run', () => {
  it('makes no unmark of its own where the final status write took the run off the active list', async () => {
    const store = new UnmarkingRunStore(join(dir, 'logs'));
    const final = await start(store, bindingsLogger([]));

    expect(final.status).toBe('succeeded');
    expect(await store.listActive()).toEqual([]);
    expect(store.unmarkCalls).toBe(0);
  });

  it('unmarks the run itself once the final status is written where the write does not', async () => {
    const store = new FullDiskStore(join(dir, 'logs'), 0);
    let unmarkedAfter: string | null = null;
    const unmark = store.unmarkActive.bind(store);
    store.unmarkActive = async (runId) => {
      const read = await store.readStatus(runId);
      unmarkedAfter = read.kind === 'ok' ? read.status.status : read.kind;
      return unmark(runId);
    };
    await start(store, bindingsLogger([]));

    expect(unmarkedAfter).toBe('succeeded');
    expect(await store.listActive()).toEqual([]);
  });
});
