import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileRunLogStore } from '../store/fileRunLogStore';
import type { RunLogRef } from '../store/runLogStore';
import { MAX_LINE_CHARS, readLinePage, searchLog } from './logLines';

let dir: string;
let logs: FileRunLogStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dagu-lines-'));
  mkdirSync(path.join(dir, 'etl', 'r1', '1'), { recursive: true });
  logs = new FileRunLogStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const STRIDE = 256;
const numbered = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `line ${from + i}\n`).join('');

/** Writes a log file of run r1 and answers its ref. */
function writeLog(name: string, content: string): RunLogRef {
  writeFileSync(path.join(dir, 'etl', 'r1', '1', name), content);
  return { dag_name: 'etl', run_id: 'r1', attempt: 1, name };
}

describe('readLinePage', () => {
  it('counts each line once when many requests index the same file at once', async () => {
    const ref = writeLog('busy.out', numbered(0, 200_000));
    const pages = await Promise.all(
      Array.from({ length: 8 }, (_, i) => readLinePage(logs, ref, i * 20_000, 1)),
    );
    expect(pages.map((p) => [p?.total_lines, p?.lines[0]])).toEqual(
      Array.from({ length: 8 }, (_, i) => [200_000, `line ${i * 20_000}`]),
    );
  });

  it('serves any page of a file of many lines, across checkpoints', async () => {
    const ref = writeLog('a.out', numbered(0, 5000));
    const page = await readLinePage(logs, ref, STRIDE * 3 - 2, 5);
    expect(page).toEqual({
      from: STRIDE * 3 - 2,
      lines: [0, 1, 2, 3, 4].map((i) => `line ${STRIDE * 3 - 2 + i}`),
      total_lines: 5000,
      size: numbered(0, 5000).length,
    });
    expect((await readLinePage(logs, ref, 4998, 10))?.lines).toEqual(['line 4998', 'line 4999']);
    expect((await readLinePage(logs, ref, 5000, 10))?.lines).toEqual([]);
  });

  it('follows a growing file, counting a last line still being written', async () => {
    const ref = writeLog('grow.out', 'one\ntw');
    expect(await readLinePage(logs, ref, 0, 10)).toMatchObject({ lines: ['one', 'tw'], total_lines: 2 });
    appendFileSync(path.join(dir, 'etl', 'r1', '1', 'grow.out'), `o\n${numbered(0, 600)}`);
    const page = await readLinePage(logs, ref, 500, 3);
    expect(page).toMatchObject({ lines: ['line 498', 'line 499', 'line 500'], total_lines: 602 });
  });

  it('answers null for a log that is not written yet', async () => {
    expect(
      await readLinePage(logs, { dag_name: 'etl', run_id: 'r1', attempt: 1, name: 'no.out' }, 0, 5),
    ).toBeNull();
  });

  it('cuts a very long line and drops a carriage return', async () => {
    const ref = writeLog('long.out', `${'x'.repeat(MAX_LINE_CHARS * 3)}\nwindows\r\n`);
    const page = await readLinePage(logs, ref, 0, 2);
    expect(page?.lines[0]).toHaveLength(MAX_LINE_CHARS + 1);
    expect(page?.lines[1]).toBe('windows');
  });
});

describe('searchLog', () => {
  it('finds lines case-insensitively with their neighbours', async () => {
    const ref = writeLog('s.out', 'a\nb\nNeedle one\nc\nd\nneedle two');
    const found = await searchLog(logs, ref, 'NEEDLE', { limit: 10, context: 1 });
    expect(found).toEqual({
      more: false,
      lines: 6,
      matches: [
        { line: 2, text: 'Needle one', before: ['b'], after: ['c'] },
        { line: 5, text: 'needle two', before: ['d'], after: [] },
      ],
    });
  });

  it('stops at the limit and says there is more', async () => {
    const ref = writeLog('many.out', numbered(0, 10_000));
    const found = await searchLog(logs, ref, 'line 9', { limit: 3, context: 0 });
    expect(found?.matches.map((m) => m.line)).toEqual([9, 90, 91]);
    expect(found?.more).toBe(true);
  });
});
