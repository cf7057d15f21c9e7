import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchedulerStateFile, schedulerStateShapeError, type SchedulerState } from './schedulerState';
import { RecordingLogger } from '../testing/recordingLogger';

/** The state file Dagu 2.x writes to data/scheduler/state.json (schema version 4, indented). */
const DAGU_STATE = `{
  "version": 4,
  "dags": {
    "etl": {
      "lastScheduledTime": "2026-12-01T22:00:00Z",
      "skipSuccessResetAt": "0001-01-01T00:00:00Z",
      "oneOffs": {
        "a1b2": { "scheduledTime": "2026-12-02T08:00:00Z", "status": "pending" }
      }
    }
  }
}`;

const OURS: SchedulerState = {
  version: 1,
  last_tick_ms: 1_796_169_600_000,
  dags: { etl: { last_slot_ms: 1_796_169_600_000 } },
  pending_at: { report: [1_796_256_000_000] },
};

describe('schedulerStateShapeError', () => {
  it('accepts our record, with and without pending_at, and a null last tick', () => {
    expect(schedulerStateShapeError(OURS)).toBeNull();
    expect(schedulerStateShapeError({ version: 1, last_tick_ms: null, dags: {} })).toBeNull();
  });

  it("rejects Dagu's state files of every version it has written", () => {
    expect(schedulerStateShapeError(JSON.parse(DAGU_STATE))).toBe('unknown version 4');
    // Versions 0 to 3 carried lastTick in the same file; version 1 is the one that could pass for ours.
    for (const version of [0, 1, 2, 3]) {
      const old = { version, lastTick: '2026-12-01T22:00:00Z', dags: JSON.parse(DAGU_STATE).dags };
      expect(schedulerStateShapeError(old), `version ${version}`).not.toBeNull();
    }
    expect(
      schedulerStateShapeError({ version: 1, last_tick_ms: null, dags: { etl: { lastScheduledTime: 'x' } } }),
    ).toBe('dags.etl has no last_slot_ms');
  });

  it('names what is wrong with a damaged record of ours', () => {
    expect(schedulerStateShapeError([])).toBe('not a JSON object');
    expect(schedulerStateShapeError({ version: 1, dags: {} })).toBe(
      'last_tick_ms is missing or not a number',
    );
    expect(schedulerStateShapeError({ version: 1, last_tick_ms: 'x', dags: {} })).toBe(
      'last_tick_ms is missing or not a number',
    );
    expect(schedulerStateShapeError({ version: 1, last_tick_ms: 1, dags: [] })).toBe('dags is not an object');
    expect(
      schedulerStateShapeError({ version: 1, last_tick_ms: 1, dags: {}, pending_at: { a: ['x'] } }),
    ).toBe('pending_at.a is not a list of times');
  });
});

describe('SchedulerStateFile', () => {
  let dataDir: string;
  let logger: RecordingLogger;
  let store: SchedulerStateFile;
  const legacy = () => path.join(dataDir, 'scheduler', 'state.json');
  const current = () => path.join(dataDir, 'scheduler', 'tick-state.json');

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-sched-state-'));
    await fs.mkdir(path.join(dataDir, 'scheduler'));
    logger = new RecordingLogger();
    store = new SchedulerStateFile(dataDir, logger);
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('writes tick-state.json and reads it back', async () => {
    await store.write(OURS);
    expect(JSON.parse(await fs.readFile(current(), 'utf8'))).toEqual(OURS);
    expect(await store.read()).toEqual(OURS);
    await expect(fs.stat(legacy())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('upgrades a home of an earlier version: reads our state.json, then writes only the new name', async () => {
    const old = `${JSON.stringify(OURS)}\n`;
    await fs.writeFile(legacy(), old);
    expect(await store.read()).toEqual(OURS);
    expect(logger.find('old file name')).toHaveLength(1);
    const next: SchedulerState = { ...OURS, last_tick_ms: OURS.last_tick_ms! + 60_000 };
    await store.write(next);
    expect(await store.read()).toEqual(next);
    // The old file is left as it was (a downgrade still finds it), and no longer read.
    expect(await fs.readFile(legacy(), 'utf8')).toBe(old);
  });

  it("starts fresh beside Dagu's state.json and never rewrites it", async () => {
    await fs.writeFile(legacy(), DAGU_STATE);
    const before = await fs.stat(legacy());
    expect(await store.read()).toEqual({ version: 1, last_tick_ms: null, dags: {} });
    expect(logger.find('Scheduler state file is unreadable')).toEqual([]);
    expect(logger.find('Leaving data/scheduler/state.json alone')[0].fields.reason).toBe('unknown version 4');
    await store.write(OURS);
    expect(await store.read()).toEqual(OURS);
    expect(await fs.readFile(legacy(), 'utf8')).toBe(DAGU_STATE);
    expect((await fs.stat(legacy())).mtimeMs).toBe(before.mtimeMs);
  });

  it('prefers tick-state.json over an old state.json of ours', async () => {
    await fs.writeFile(legacy(), JSON.stringify({ ...OURS, last_tick_ms: 5 }));
    await store.write(OURS);
    expect(await store.read()).toEqual(OURS);
  });

  it('reports a corrupt tick-state.json and starts without replay, without falling back to the old name', async () => {
    await fs.writeFile(legacy(), JSON.stringify(OURS));
    await fs.writeFile(current(), '{"version": 1, "dags"');
    expect(await store.read()).toEqual({ version: 1, last_tick_ms: null, dags: {} });
    expect(logger.find('Scheduler state file is unreadable')[0].fields.path).toBe(current());
  });
});
