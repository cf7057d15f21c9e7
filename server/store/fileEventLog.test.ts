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

  it('starts an event on a line of its own after a torn line, which reads skip and report once', async () => {
    const first = await log.append('a', {});
    await fs.appendFile(dayFile(), '{"id":"1772359200000-00'); // a write cut short, no newline
    const second = await log.append('b', { nested: { id: 'x' } });
    await fs.appendFile(dayFile(), 'garbage\n');
    const last = await log.append('c', {});

    expect((await fs.readFile(dayFile(), 'utf8')).split('\n')).toEqual([
      JSON.stringify(first),
      '{"id":"1772359200000-00',
      JSON.stringify(second),
      'garbage',
      JSON.stringify(last),
      '',
    ]);
    expect(await log.list({})).toEqual([first, second, last]);
    expect(await log.list({})).toHaveLength(3);
    expect(reports).toEqual([
      { path: dayFile(), error: 'line 2 is not a whole event record (torn write?)' },
      { path: dayFile(), error: 'line 4 is not a whole event record (torn write?)' },
    ]);
  });

  it('recovers a whole record glued after a torn one (two hosts appending at once on NFS)', async () => {
    const first = await log.append('a', {});
    const other = new FileEventLog({ dataDir: path.join(dataDir, 'other'), clock });
    // A millisecond apart: IDs of two logs in the same millisecond sort by their random part.
    clock.now += 1;
    const glued = await other.append('b', { nested: { id: 'x' } });
    await fs.appendFile(dayFile(), `{"id":"1772359200000-00${JSON.stringify(glued)}\n`);
    clock.now += 1;
    const last = await log.append('c', {});

    expect(await log.list({})).toEqual([first, glued, last]);
    expect(reports).toEqual([{ path: dayFile(), error: 'line 2 is not a whole event record (torn write?)' }]);
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
