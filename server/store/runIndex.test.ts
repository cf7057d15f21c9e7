import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, SECOND } from '../core/units';
import { addIndexMarker, bucketPath, newestIndexEntries, parseMarkerName } from './runIndex';
import { compareKeysDesc, runListKey } from './runList';

describe('runIndex', () => {
  let root: string;
  const keys: string[] = [];
  const base = Date.UTC(2026, 2, 1);

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-index-'));
    const times: number[] = [];
    for (let i = 0; i < 120; i++) times.push(base + 5 * HOUR + 7 * SECOND + i); // a burst in one second
    for (let i = 0; i < 40; i++) times.push(base + i * 37 * MINUTE); // sparse: a leaf per run
    for (let i = 0; i < 10; i++) times.push(base + 3 * 24 * HOUR + i * HOUR); // days later
    for (let i = 0; i < 6; i++) times.push(base + 2 * HOUR); // exact ties
    await Promise.all(
      times.map(async (ms, i) => {
        await addIndexMarker(root, ms, `run-${i}`, 'etl');
        keys.push(runListKey(ms, `run-${i}`));
      }),
    );
    keys.sort(compareKeysDesc);
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('returns exactly the newest entries in key order for any page size', async () => {
    for (const need of [1, 2, 5, 17, 50, 51, 130, 500]) {
      const entries = await newestIndexEntries(root, need, null);
      expect(entries.map((e) => e.key)).toEqual(keys.slice(0, need));
    }
  });

  it('continues below any cursor, inside a dense leaf or between sparse ones', async () => {
    for (const at of [0, 3, 9, 10, 60, 129, 130, 150, keys.length - 1]) {
      const entries = await newestIndexEntries(root, 25, keys[at]);
      expect(entries.map((e) => e.key)).toEqual(keys.slice(at + 1, at + 26));
    }
  });

  it('reads an absent index as empty', async () => {
    expect(await newestIndexEntries(path.join(root, 'nope'), 10, null)).toEqual([]);
  });

  it('buckets by UTC day, hour and minute-second', () => {
    expect(bucketPath(Date.UTC(2026, 10, 30, 1, 15, 9, 500))).toEqual(['20261130', '01', '1509']);
  });

  it('ignores names that are not markers', () => {
    expect(parseMarkerName('.tmp')).toBeNull();
    expect(parseMarkerName('123~run')).toBeNull();
    expect(parseMarkerName('1772323200000~run~..')).toBeNull();
    expect(parseMarkerName('1772323200000~run-1~etl')).toMatchObject({ runId: 'run-1', dagName: 'etl' });
  });
});
