// FileEventLog when an append fails part-way (a full disk): the file calls are wrapped so that the next
// write stops after a chosen number of bytes, or its fsync fails, and the test checks what the file holds.

import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from './eventLog.contract';
import { FileEventFeed } from './eventFeed';
import type * as FileCalls from './fileCalls';
import { blockFileCallsWhile } from './fileCalls';
import { FileEventLog } from './fileEventLog';
import type { CorruptFileReport } from './fsutil';

const faults = vi.hoisted(() => ({
  /** The next append write stops after this many bytes (what a full disk lets through). */
  shortWrite: null as number | null,
  /** Run after that short write, before the writer sees it: another process's append. */
  afterShortWrite: null as (() => Promise<void>) | null,
  /** The next fsync fails with this code. */
  fsyncFails: null as string | null,
  /** Every positioned write fails with this code (the fragment cannot be cleared either). */
  writeAtFails: null as string | null,
}));

vi.mock('./fileCalls', async (importOriginal) => {
  const real = await importOriginal<typeof FileCalls>();
  const fail = (code: string, call: string) =>
    Object.assign(new Error(`${code}: injected ${call} failure`), { code });
  return {
    ...real,
    writeOnce: async (fd: number, buffer: Uint8Array) => {
      const limit = faults.shortWrite;
      if (limit === null) return real.writeOnce(fd, buffer);
      faults.shortWrite = null;
      const written = await real.writeOnce(fd, buffer.subarray(0, limit));
      await faults.afterShortWrite?.();
      return written;
    },
    fsync: async (fd: number) => {
      const code = faults.fsyncFails;
      faults.fsyncFails = null;
      if (code !== null) throw fail(code, 'fsync');
      return real.fsync(fd);
    },
    writeAt: async (fd: number, buffer: Uint8Array, position: number) => {
      if (faults.writeAtFails !== null) throw fail(faults.writeAtFails, 'write');
      return real.writeAt(fd, buffer, position);
    },
  };
});

describe.each([
  { mode: 'asynchronous file calls', block: false },
  { mode: 'blocking file calls (a run process)', block: true },
])('FileEventLog when an append fails part-way, $mode', ({ block }) => {
  let dataDir: string;
  let clock: ManualClock;
  let reports: CorruptFileReport[];
  let log: FileEventLog;
  const dayFile = () => path.join(dataDir, 'events', '20260301.jsonl');
  /** The file's lines, blank ones left out: each must be one whole record. */
  const lines = async () => (await fs.readFile(dayFile(), 'utf8')).split('\n').filter((l) => l.trim() !== '');

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-events-faults-'));
    clock = new ManualClock();
    reports = [];
    log = new FileEventLog({ dataDir, clock, onCorrupt: (r) => reports.push(r) });
    Object.assign(faults, { shortWrite: null, afterShortWrite: null, fsyncFails: null, writeAtFails: null });
    blockFileCallsWhile(() => block);
  });
  afterEach(async () => {
    blockFileCallsWhile(() => false);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it.each([1, 20, 60])(
    'leaves no torn line after a write cut short at byte %i: the next event is whole',
    async (cut) => {
      const first = await log.append('a', { n: 1 });
      faults.shortWrite = cut;
      await expect(log.append('b', { n: 2 })).rejects.toThrow(/^short write to .*: \d+ of \d+ bytes$/);
      const third = await log.append('c', { n: 3 });

      expect(await lines()).toEqual([JSON.stringify(first), JSON.stringify(third)]);
      expect(await log.list({})).toEqual([first, third]);
      expect(await new FileEventFeed(dataDir).read(() => true)).toEqual([first, third]);
      expect(reports).toEqual([]);
    },
  );

  it('clears the fragment when another writer appended after it, keeping that line whole', async () => {
    const first = await log.append('a', {});
    const other = new FileEventLog({ dataDir, clock });
    let theirs: Awaited<ReturnType<FileEventLog['append']>> | undefined;
    faults.shortWrite = 45;
    faults.afterShortWrite = async () => {
      faults.afterShortWrite = null;
      clock.now += 1; // IDs of two logs in the same millisecond sort by their random part
      theirs = await other.append('theirs', { host: 'b' });
    };

    await expect(log.append('b', {})).rejects.toThrow(/short write/);

    expect(await lines()).toEqual([JSON.stringify(first), JSON.stringify(theirs)]);
    expect(await log.list({})).toEqual([first, theirs]);
    expect(reports).toEqual([]);
  });

  it('leaves no trace of an event whose fsync failed: the caller was told it was not written', async () => {
    const first = await log.append('a', {});
    faults.fsyncFails = 'EIO';
    await expect(log.append('b', { lost: true })).rejects.toMatchObject({ code: 'EIO' });
    const third = await log.append('c', {});

    expect(await lines()).toEqual([JSON.stringify(first), JSON.stringify(third)]);
    expect(await log.list({})).toEqual([first, third]);
  });

  it('starts the next event on a line of its own when the fragment cannot be cleared either', async () => {
    const first = await log.append('a', {});
    faults.shortWrite = 32; // the record's ID and no more
    faults.writeAtFails = 'EROFS';
    await expect(log.append('b', {})).rejects.toThrow(/short write/);
    faults.writeAtFails = null;
    const third = await log.append('c', {});
    const fourth = await log.append('d', {});

    // The fragment is a line of its own, skipped and reported once; nothing is glued onto it.
    const text = await fs.readFile(dayFile(), 'utf8');
    expect(text.split('\n')).toEqual([
      JSON.stringify(first),
      expect.stringMatching(/^\{"id":"\d{13}-[0-9a-f]{10}"$/),
      JSON.stringify(third),
      JSON.stringify(fourth),
      '',
    ]);
    expect(await log.list({})).toEqual([first, third, fourth]);
    expect(await new FileEventFeed(dataDir).read(() => true)).toEqual([first, third, fourth]);
    expect(reports).toEqual([{ path: dayFile(), error: 'line 2 is not a whole event record (torn write?)' }]);
  });

  it('keeps a torn line of a failed append on its own line when a second append fails too', async () => {
    const first = await log.append('a', {});
    faults.writeAtFails = 'EROFS';
    faults.shortWrite = 30;
    await expect(log.append('b', {})).rejects.toThrow(/short write/);
    faults.writeAtFails = null;
    // The second write gets only the newline that ends the torn line, and part of its record.
    faults.shortWrite = 10;
    await expect(log.append('c', {})).rejects.toThrow(/short write/);
    const last = await log.append('d', {});

    expect(await log.list({})).toEqual([first, last]);
    expect((await fs.readFile(dayFile(), 'utf8')).endsWith(`\n${JSON.stringify(last)}\n`)).toBe(true);
    expect(reports).toEqual([{ path: dayFile(), error: 'line 2 is not a whole event record (torn write?)' }]);
  });
});
