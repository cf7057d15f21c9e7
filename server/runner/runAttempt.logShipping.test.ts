// A run with a log store that is not its local disk (the database backend): its logs reach the store while
// it runs and in full before its final status, and a store that is down or does not answer never fails the
// run nor holds it up for longer than the bounded final flush.

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { systemClock, systemTimers } from '../core/clock';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { FileRunLogStore } from '../store/fileRunLogStore';
import { MemoryRunStore } from '../store/memoryRunStore';
import type { RunLogRef, RunLogStore } from '../store/runLogStore';
import { RecordingLogger } from '../testing/recordingLogger';
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
      // Also the bound of the final log flush (it never outlasts the final status's own retries).
      DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '1s',
    },
  });

/** The run store with its logs in the temp directory; notes what the log store held at the final write. */
class Runs extends MemoryRunStore {
  atFinalWrite: string | null = null;
  constructor(private readonly onFinal: () => Promise<string>) {
    super();
  }
  override async writeStatus(status: RunStatus): Promise<void> {
    if (TERMINAL_RUN_STATES.includes(status.status) && this.atFinalWrite === null) {
      this.atFinalWrite = await this.onFinal();
    }
    return super.writeStatus(status);
  }
  override logDir(dagName: string, runId: string, attempt: number): string {
    return join(dir, 'local-logs', dagName, runId, String(attempt));
  }
}

async function text(store: RunLogStore, ref: RunLogRef): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const piece of store.read(ref, 0, Infinity)) parts.push(piece);
  return Buffer.concat(parts).toString();
}

const ref = (name: string): RunLogRef => ({ dag_name: 'ship', run_id: 'r1', attempt: 1, name });

function start(
  runs: Runs,
  logStore: Pick<RunLogStore, 'append'>,
  steps: string[],
  logger = new RecordingLogger(),
) {
  return startRun({
    dag: dagOf(
      steps.map((command, i) => stepOf(`s${i}`, command)),
      { name: 'ship' },
    ),
    runStore: runs,
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
    logStore,
  });
}

describe('runAttempt with a log store', () => {
  it("ships every step's output and the run's own log, all of it before the final status", async () => {
    const remote = new FileRunLogStore(join(dir, 'remote'));
    // At the final status write: the last step's stderr, and whether the run log has its last line.
    const runs = new Runs(
      async () =>
        `${await text(remote, ref('s1.err'))}${(await text(remote, ref('_run.log'))).includes('Run finished')}`,
    );
    const logger = new RecordingLogger();
    const final = await start(runs, remote, ['echo one', 'echo two; echo oops >&2'], logger);
    expect(final.status).toBe('succeeded');
    expect(logger.lines.filter((l) => l.level !== 'info')).toEqual([]);
    expect(await text(remote, ref('s0.out'))).toBe('one\n');
    expect(await text(remote, ref('s1.out'))).toBe('two\n');
    expect(runs.atFinalWrite).toBe('oops\ntrue');
    expect(await remote.stat(ref('s0.err'))).toEqual({ size: 0, lines: 0 });
    // The run's own log, up to its last line, is the local file byte for byte.
    const local = readFileSync(join(dir, 'local-logs', 'ship', 'r1', '1', '_run.log'), 'utf8');
    expect(local).toContain('Run finished');
    expect(await text(remote, ref('_run.log'))).toBe(local);
  });

  it('ships a step’s output while the step still runs', async () => {
    const remote = new FileRunLogStore(join(dir, 'remote'));
    const runs = new Runs(async () => '');
    const marker = join(dir, 'go');
    // The step prints, then waits until the test has seen its output in the store.
    const running = start(runs, remote, [
      `echo started; while [ ! -e ${marker} ]; do sleep 0.05; done; echo ended`,
    ]);
    const deadline = Date.now() + 20_000;
    let seen = '';
    while (!seen.includes('started') && Date.now() < deadline) {
      seen = await text(remote, ref('s0.out'));
      if (!seen.includes('started')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe('started\n');
    mkdirSync(marker);
    expect((await running).status).toBe('succeeded');
    expect(await text(remote, ref('s0.out'))).toBe('started\nended\n');
  });

  it('never fails a run when the store is down, and reports it', async () => {
    const down = {
      append: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      },
    };
    const logger = new RecordingLogger();
    const runs = new Runs(async () => '');
    const t0 = Date.now();
    const final = await start(runs, down, ['echo fine'], logger);
    expect(final.status).toBe('succeeded');
    expect((await runs.readStatus('r1')).kind === 'ok').toBe(true);
    expect(logger.find('Log shipping failed; retrying')).toHaveLength(1);
    expect(logger.find('Gave up shipping the run logs before the final status')[0]?.fields).toMatchObject({
      unshipped_bytes: expect.any(Number),
    });
    // The final flush (1 s here) and the trailing one (2 s) bound the wait; generous for a loaded machine.
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('never hangs a run on a store call that does not return', async () => {
    const stalled = { append: () => new Promise<number>(() => undefined) };
    const logger = new RecordingLogger();
    const runs = new Runs(async () => '');
    const final = await start(runs, stalled, ['echo fine'], logger);
    expect(final.status).toBe('succeeded');
    expect(logger.find('Gave up shipping the run logs before the final status')).toHaveLength(1);
    const read = await runs.readStatus('r1');
    expect(read.kind === 'ok' && read.status.status).toBe('succeeded');
  });
});
