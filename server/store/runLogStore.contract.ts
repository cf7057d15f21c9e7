// The behaviour every RunLogStore must have; run against the file store (on a temp directory) and the
// PostgreSQL store (on a throwaway cluster). The run store beside it is the one of the same backend: logs
// belong to runs, and a run's logs go when history retention deletes the run.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { testRunStatus } from '../testing/testRunStatus';
import { LogGapError, type RunLogRef, type RunLogStore } from './runLogStore';
import type { RunStore } from './types';

export interface RunLogFixture {
  logs: RunLogStore;
  runs: RunStore;
  cleanup?: () => Promise<void>;
}

const ref = (name: string, over: Partial<RunLogRef> = {}): RunLogRef => ({
  dag_name: 'etl',
  run_id: 'r1',
  attempt: 1,
  name,
  ...over,
});

const bytes = (text: string) => Buffer.from(text, 'utf8');

async function readAll(logs: RunLogStore, r: RunLogRef, start = 0, end = Infinity): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const piece of logs.read(r, start, end)) parts.push(piece);
  return Buffer.concat(parts).toString('utf8');
}

/** Appends `text` in pieces of at most `piece` bytes, as a shipper would; answers the size after. */
async function appendInPieces(logs: RunLogStore, r: RunLogRef, text: string, piece: number) {
  const data = bytes(text);
  let size = (await logs.stat(r))?.size ?? 0;
  for (let at = 0; at < data.length; at += piece) {
    size = await logs.append(r, size, data.subarray(at, Math.min(data.length, at + piece)));
  }
  return size;
}

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `line ${from + i}\n`).join('');

export function describeRunLogStoreContract(name: string, make: () => Promise<RunLogFixture>): void {
  describe(`${name} (RunLogStore contract)`, () => {
    let fixture: RunLogFixture;
    let logs: RunLogStore;
    beforeEach(async () => {
      fixture = await make();
      logs = fixture.logs;
      await fixture.runs.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('knows nothing of a log that was never written', async () => {
      expect(await logs.stat(ref('greet.out'))).toBeNull();
      expect(await readAll(logs, ref('greet.out'))).toBe('');
      expect(await logs.seekLine(ref('greet.out'), 10)).toEqual({ offset: 0, line: 0 });
      expect(await logs.list({ dag_name: 'etl', run_id: 'r1' })).toEqual([]);
    });

    it('grows a log by appends at its end and gives back any byte range of it', async () => {
      const text = 'alpha\nbeta\ngamma\n';
      expect(await appendInPieces(logs, ref('greet.out'), text, 4)).toBe(text.length);
      expect(await logs.stat(ref('greet.out'))).toEqual({ size: text.length, lines: 3 });
      expect(await readAll(logs, ref('greet.out'))).toBe(text);
      for (const [start, end] of [
        [0, 1],
        [3, 9],
        [4, 8],
        [5, text.length],
        [text.length - 1, text.length + 100],
        [text.length, text.length + 5],
        [9, 9],
      ]) {
        expect(await readAll(logs, ref('greet.out'), start, end), `${start}..${end}`).toBe(
          text.slice(start, end),
        );
      }
    });

    it('makes an empty log exist with an empty append at its start', async () => {
      expect(await logs.append(ref('greet.err'), 0, new Uint8Array(0))).toBe(0);
      expect(await logs.stat(ref('greet.err'))).toEqual({ size: 0, lines: 0 });
      expect(await logs.list({ dag_name: 'etl', run_id: 'r1' })).toEqual([
        { attempt: 1, name: 'greet.err', size: 0, lines: 0 },
      ]);
      expect(await logs.append(ref('greet.err'), 0, new Uint8Array(0))).toBe(0);
    });

    it('takes the first bytes of a log that was made empty before', async () => {
      expect(await logs.append(ref('greet.out'), 0, new Uint8Array(0))).toBe(0);
      expect(await logs.append(ref('greet.out'), 0, bytes('one\n'))).toBe(4);
      expect(await logs.append(ref('greet.out'), 0, bytes('one\n'))).toBe(4);
      expect(await logs.stat(ref('greet.out'))).toEqual({ size: 4, lines: 1 });
      expect(await readAll(logs, ref('greet.out'))).toBe('one\n');
    });

    it('writes nothing for a retried append, and refuses one past the end', async () => {
      await logs.append(ref('greet.out'), 0, bytes('one\n'));
      await logs.append(ref('greet.out'), 4, bytes('two\n'));
      // The answer to the second append was lost: it is sent again, maybe with more bytes read since.
      expect(await logs.append(ref('greet.out'), 4, bytes('two\nthree\n'))).toBe(8);
      expect(await logs.append(ref('greet.out'), 0, bytes('one\n'))).toBe(8);
      await expect(logs.append(ref('greet.out'), 9, bytes('x'))).rejects.toBeInstanceOf(LogGapError);
      await expect(logs.append(ref('other.out'), 3, bytes('x'))).rejects.toBeInstanceOf(LogGapError);
      expect(await readAll(logs, ref('greet.out'))).toBe('one\ntwo\n');
      expect(await logs.stat(ref('other.out'))).toBeNull();
    });

    it('counts a last line that has no newline yet, and keeps it open for more', async () => {
      await logs.append(ref('greet.out'), 0, bytes('one\ntw'));
      expect(await logs.stat(ref('greet.out'))).toEqual({ size: 6, lines: 2 });
      await logs.append(ref('greet.out'), 6, bytes('o'));
      expect(await logs.stat(ref('greet.out'))).toEqual({ size: 7, lines: 2 });
      await logs.append(ref('greet.out'), 7, bytes('\n'));
      expect(await logs.stat(ref('greet.out'))).toEqual({ size: 8, lines: 2 });
    });

    it('finds any line of a long log without reading from its start', async () => {
      const text = numbered(0, 5000);
      await appendInPieces(logs, ref('long.out'), text, 7000);
      const all = bytes(text);
      for (const line of [0, 1, 255, 256, 257, 700, 1024, 2999, 4999, 5000, 9999]) {
        const at = await logs.seekLine(ref('long.out'), line);
        // `line` is the number of newlines before the offset, and the offset is no later than the line.
        const before = all.subarray(0, at.offset).filter((b) => b === 0x0a).length;
        expect(before, `line ${line}`).toBe(at.line);
        expect(at.line).toBeLessThanOrEqual(line);
        const lineStart = line === 0 ? 0 : Math.min(all.length, nthNewlineEnd(all, line));
        expect(at.offset).toBeLessThanOrEqual(lineStart);
        // Mid-line offsets only for a line before the one asked for.
        if (at.offset > 0 && all[at.offset - 1] !== 0x0a) expect(at.line).toBeLessThan(line);
      }
      // Reading from there reaches the line after few bytes: never the log from its start, late in it.
      const late = await logs.seekLine(ref('long.out'), 4500);
      expect(all.length - late.offset).toBeLessThan(all.length / 2);
    });

    it('lists every log of every attempt of a run, by attempt then name, and no other run', async () => {
      await fixture.runs.createRun(testRunStatus({ run_id: 'r2', status: 'running' }));
      await fixture.runs.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2, status: 'running' }));
      await logs.append(ref('b.out'), 0, bytes('b\n'));
      await logs.append(ref('a.err'), 0, bytes('err'));
      await logs.append(ref('_run.log', { attempt: 2 }), 0, bytes('run\nlog\n'));
      await logs.append(ref('a.out', { run_id: 'r2' }), 0, bytes('other run\n'));
      expect(await logs.list({ dag_name: 'etl', run_id: 'r1' })).toEqual([
        { attempt: 1, name: 'a.err', size: 3, lines: 1 },
        { attempt: 1, name: 'b.out', size: 2, lines: 1 },
        { attempt: 2, name: '_run.log', size: 8, lines: 2 },
      ]);
      expect(await readAll(logs, ref('a.out'))).toBe('');
      expect(await readAll(logs, ref('a.out', { run_id: 'r2' }))).toBe('other run\n');
    });

    it('keeps bytes that are not UTF-8 as they are', async () => {
      const raw = Buffer.from([0xff, 0x00, 0x0a, 0xc3, 0x28, 0x0a, 0xe2, 0x82]);
      await logs.append(ref('bin.out'), 0, raw);
      const parts: Uint8Array[] = [];
      for await (const piece of logs.read(ref('bin.out'), 0, 100)) parts.push(piece);
      expect(Buffer.concat(parts).equals(raw)).toBe(true);
      expect(await logs.stat(ref('bin.out'))).toEqual({ size: raw.length, lines: 3 });
    });

    it('lets a reader stop early, and serves the tail of a log of many pieces', async () => {
      const text = numbered(0, 200_000);
      await appendInPieces(logs, ref('big.out'), text, 256 * 1024);
      let pieces = 0;
      for await (const _ of logs.read(ref('big.out'), 0, Infinity)) {
        if (++pieces === 2) break;
      }
      expect(pieces).toBe(2);
      expect(await readAll(logs, ref('big.out'), text.length - 24, Infinity)).toBe(
        text.slice(text.length - 24),
      );
      const middle = 1_000_000;
      expect(await readAll(logs, ref('big.out'), middle, middle + 300_000)).toBe(
        text.slice(middle, middle + 300_000),
      );
      expect(await logs.stat(ref('big.out'))).toEqual({ size: text.length, lines: 200_000 });
    });

    it('refuses names that are not a log file of a run', async () => {
      for (const bad of ['../x.out', 'a/b.out', '.hidden.out', 'x.txt', '', 'x.out\0']) {
        await expect(logs.append(ref(bad), 0, bytes('x')), bad).rejects.toThrow(/log file name/);
        await expect(logs.stat(ref(bad)), bad).rejects.toThrow(/log file name/);
      }
      await expect(logs.stat(ref('x.out', { run_id: '../r1' }))).rejects.toBeInstanceOf(InvalidNameError);
      await expect(logs.stat(ref('x.out', { dag_name: 'a/b' }))).rejects.toBeInstanceOf(InvalidNameError);
      await expect(logs.stat(ref('x.out', { attempt: 0 }))).rejects.toThrow(/attempt/);
      await expect(logs.list({ dag_name: 'etl', run_id: '../r1' })).rejects.toBeInstanceOf(InvalidNameError);
    });

    it("removes a run's logs when history retention deletes the run, and no other run's", async () => {
      await fixture.runs.createRun(testRunStatus({ run_id: 'old', status: 'running' }));
      await fixture.runs.createRun(testRunStatus({ run_id: 'kept', status: 'running' }));
      for (const run_id of ['old', 'kept']) {
        await appendInPieces(logs, ref('greet.out', { run_id }), numbered(0, 2000), 4096);
        await logs.append(ref('greet.err', { run_id }), 0, new Uint8Array(0));
      }
      for (const run_id of ['old', 'kept']) {
        await fixture.runs.writeStatus(testRunStatus({ run_id, status: 'succeeded' }));
        await fixture.runs.unmarkActive(run_id);
      }
      expect(await fixture.runs.deleteRun('old')).toEqual({ deleted: true });
      expect(await logs.stat(ref('greet.out', { run_id: 'old' }))).toBeNull();
      expect(await logs.list({ dag_name: 'etl', run_id: 'old' })).toEqual([]);
      expect(await logs.list({ dag_name: 'etl', run_id: 'kept' })).toHaveLength(2);
      expect(await readAll(logs, ref('greet.out', { run_id: 'kept' }))).toBe(numbered(0, 2000));
    });
  });
}

/** The offset just after the `n`-th newline of `data` (n >= 1), or its length when it has fewer. */
function nthNewlineEnd(data: Buffer, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = data.indexOf(0x0a, at + 1);
    if (at === -1) return data.length;
  }
  return at + 1;
}
