import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunState } from '../core/types';
import { FileEventLog } from '../store/fileEventLog';
import { runEventData, runEventType } from '../store/runEvents';
import { RecordingLogger } from '../testing/recordingLogger';
import { testRunStatus } from '../testing/testRunStatus';
import { manualClock, type ManualClock } from '../api/testServices';
import { CHECKPOINT_EVERY_MS, RunTotals } from './runTotals';

const T0 = Date.parse('2026-11-30T01:00:00Z');
let dataDir: string;
let clock: ManualClock;
let log: FileEventLog;
let logger: RecordingLogger;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'dagu-run-totals-'));
  clock = manualClock(T0);
  log = new FileEventLog({ dataDir, clock });
  logger = new RecordingLogger();
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

async function end(dag: string, runId: string, status: RunState) {
  const s = testRunStatus({
    run_id: runId,
    dag_name: dag,
    status,
    started_at: new Date(clock.nowMs() - 2000).toISOString(),
    finished_at: new Date(clock.nowMs()).toISOString(),
  });
  await log.append(runEventType(status)!, runEventData(s) as unknown as Record<string, unknown>);
  clock.advance(1000);
}

const server = () => new RunTotals({ dataDir, clock, logger });
const checkpointFile = () => path.join(dataDir, 'metrics', 'run-totals.json');

describe('RunTotals', () => {
  it('counts the runs that ended, reading only new events at each catch-up', async () => {
    const a = server();
    await end('etl', 'r1', 'succeeded');
    await a.catchUp();
    await end('etl', 'r2', 'failed');
    await log.append('dag.run.running', { dag_name: 'etl' });
    await a.catchUp();
    expect(a.totals.dags.etl.finished).toMatchObject({ succeeded: 1, failed: 1 });
  });

  it('after a restart, goes on from its checkpoint without counting a run twice, and agrees with a fresh reader', async () => {
    const a = server();
    await end('etl', 'r1', 'succeeded');
    await end('etl', 'r2', 'failed');
    await a.catchUp(); // first catch-up: the checkpoint is written
    const saved = JSON.parse(readFileSync(checkpointFile(), 'utf8')) as { offsets: Record<string, number> };
    expect(Object.values(saved.offsets)[0]).toBeGreaterThan(0);

    await end('etl', 'r3', 'succeeded'); // after the checkpoint
    const restarted = server();
    await restarted.catchUp();
    expect(restarted.totals.dags.etl.finished).toMatchObject({ succeeded: 2, failed: 1 });
    // A second server that never had a checkpoint reads the whole log and agrees.
    rmSync(checkpointFile());
    const fresh = server();
    await fresh.catchUp();
    expect(fresh.totals).toEqual(restarted.totals);
  });

  it('writes the checkpoint at most every 30 s while events come in', async () => {
    const a = server();
    await end('etl', 'r1', 'succeeded');
    await a.catchUp();
    const first = readFileSync(checkpointFile(), 'utf8');
    await end('etl', 'r2', 'succeeded');
    await a.catchUp();
    expect(readFileSync(checkpointFile(), 'utf8')).toBe(first);
    clock.advance(CHECKPOINT_EVERY_MS);
    await a.catchUp();
    expect(readFileSync(checkpointFile(), 'utf8')).not.toBe(first);
  });

  it('counts from the start of the log when the checkpoint is corrupt, and says so', async () => {
    await end('etl', 'r1', 'failed');
    await server().catchUp();
    writeFileSync(checkpointFile(), '{"version": 1, "offs');
    const b = server();
    await b.catchUp();
    expect(b.totals.dags.etl.finished.failed).toBe(1);
    expect(
      logger.find('Could not read the run metrics checkpoint; counting from the start of the event log'),
    ).toHaveLength(1);
  });
});
