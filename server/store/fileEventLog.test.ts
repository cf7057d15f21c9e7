import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeEventLogContract, ManualClock } from './eventLog.contract';
import { blockFileCallsWhile } from './fileCalls';
import { FileEventLog } from './fileEventLog';
import type { CorruptFileReport } from './fsutil';

async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-events-'));
}

describeEventLogContract('FileEventLog', async (clock) => {
  const dataDir = await tempDataDir();
  return {
    store: new FileEventLog({ dataDir, clock }),
    cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
});

describeEventLogContract('FileEventLog, blocking file calls', async (clock) => {
  const dataDir = await tempDataDir();
  blockFileCallsWhile(() => true);
  return {
    store: new FileEventLog({ dataDir, clock }),
    cleanup: async () => {
      blockFileCallsWhile(() => false);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
});

describe('FileEventLog on disk', () => {
  let dataDir: string;
  let clock: ManualClock;
  let reports: CorruptFileReport[];
  let log: FileEventLog;
  const dayFile = () => path.join(dataDir, 'events', '20260301.jsonl');

  beforeEach(async () => {
    dataDir = await tempDataDir();
    clock = new ManualClock();
    reports = [];
    log = new FileEventLog({ dataDir, clock, onCorrupt: (r) => reports.push(r) });
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('writes one JSON line per event into the file of its UTC day', async () => {
    const event = await log.append('scheduler:start', { instance: 'a' });
    expect(await fs.readFile(dayFile(), 'utf8')).toBe(JSON.stringify(event) + '\n');
  });

  it('skips and reports a torn line once, and recovers a record glued after it', async () => {
    const first = await log.append('a', {});
    await fs.appendFile(dayFile(), '{"id":"1772359200000-00'); // a write cut short, no newline
    const glued = await log.append('b', { nested: { id: 'x' } });
    await fs.appendFile(dayFile(), 'garbage\n');
    const last = await log.append('c', {});

    expect(await log.list({})).toEqual([first, glued, last]);
    expect(await log.list({})).toHaveLength(3);
    expect(reports).toEqual([
      { path: dayFile(), error: 'line 2 is not a whole event record (torn write?)' },
      { path: dayFile(), error: 'line 3 is not a whole event record (torn write?)' },
    ]);
  });

  it('keeps every event when several log instances append at once', async () => {
    const logs = [log, new FileEventLog({ dataDir, clock }), new FileEventLog({ dataDir, clock })];
    await Promise.all(Array.from({ length: 60 }, (_, i) => logs[i % 3].append('tick', { i })));
    const events = await log.list({ limit: 1000 });
    expect(events.map((e) => e.data.i).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    expect(reports).toEqual([]);
  });

  it('lists nothing when no event was ever written', async () => {
    expect(await log.list({})).toEqual([]);
  });
});
