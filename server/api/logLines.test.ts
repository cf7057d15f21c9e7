import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineIndex, MAX_LINE_CHARS, STRIDE, readLinePage, searchFile } from './logLines';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dagu-lines-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `line ${from + i}\n`).join('');

describe('LineIndex', () => {
  it('notes where every STRIDE-th line starts and where the next line starts', () => {
    const index = new LineIndex(1);
    const text = Buffer.from(numbered(0, STRIDE * 2 + 3));
    // In two pieces cut inside a line: offsets are of the file, not the piece.
    index.noteNewlines(text.subarray(0, 1000), 0);
    index.noteNewlines(text.subarray(1000), 1000);
    expect(index.complete).toBe(STRIDE * 2 + 3);
    expect(index.checkpoints).toEqual([
      0,
      text.indexOf(`line ${STRIDE}\n`),
      text.indexOf(`line ${STRIDE * 2}\n`),
    ]);
    expect(index.nextLineStart).toBe(text.length);
    expect(index.lineCount(text.length)).toBe(STRIDE * 2 + 3);
    expect(index.lineCount(text.length + 4)).toBe(STRIDE * 2 + 4);
  });
});

describe('readLinePage', () => {
  it('counts each line once when many requests index the same file at once', async () => {
    const file = path.join(dir, 'busy.out');
    writeFileSync(file, numbered(0, 200_000));
    const pages = await Promise.all(Array.from({ length: 8 }, (_, i) => readLinePage(file, i * 20_000, 1)));
    expect(pages.map((p) => [p.total_lines, p.lines[0]])).toEqual(
      Array.from({ length: 8 }, (_, i) => [200_000, `line ${i * 20_000}`]),
    );
  });

  it('serves any page of a file of many lines, across checkpoints', async () => {
    const file = path.join(dir, 'a.out');
    writeFileSync(file, numbered(0, 5000));
    const page = await readLinePage(file, STRIDE * 3 - 2, 5);
    expect(page).toEqual({
      from: STRIDE * 3 - 2,
      lines: [0, 1, 2, 3, 4].map((i) => `line ${STRIDE * 3 - 2 + i}`),
      total_lines: 5000,
      size: numbered(0, 5000).length,
    });
    expect((await readLinePage(file, 4998, 10)).lines).toEqual(['line 4998', 'line 4999']);
    expect((await readLinePage(file, 5000, 10)).lines).toEqual([]);
  });

  it('follows a growing file, counting a last line still being written', async () => {
    const file = path.join(dir, 'grow.out');
    writeFileSync(file, 'one\ntw');
    expect(await readLinePage(file, 0, 10)).toMatchObject({ lines: ['one', 'tw'], total_lines: 2 });
    appendFileSync(file, `o\n${numbered(0, 600)}`);
    const page = await readLinePage(file, 500, 3);
    expect(page).toMatchObject({ lines: ['line 498', 'line 499', 'line 500'], total_lines: 602 });
  });

  it('reads a file replaced by a shorter one from the start again', async () => {
    const file = path.join(dir, 'r.out');
    writeFileSync(file, numbered(0, 300));
    await readLinePage(file, 0, 1);
    writeFileSync(file, 'new\n');
    expect(await readLinePage(file, 0, 5)).toMatchObject({ lines: ['new'], total_lines: 1 });
  });

  it('cuts a very long line and drops a carriage return', async () => {
    const file = path.join(dir, 'long.out');
    writeFileSync(file, `${'x'.repeat(MAX_LINE_CHARS * 3)}\nwindows\r\n`);
    const { lines } = await readLinePage(file, 0, 2);
    expect(lines[0]).toHaveLength(MAX_LINE_CHARS + 1);
    expect(lines[1]).toBe('windows');
  });
});

describe('searchFile', () => {
  it('finds lines case-insensitively with their neighbours', async () => {
    const file = path.join(dir, 's.out');
    writeFileSync(file, 'a\nb\nNeedle one\nc\nd\nneedle two');
    const found = await searchFile(file, 'NEEDLE', { limit: 10, context: 1 });
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
    const file = path.join(dir, 'many.out');
    writeFileSync(file, numbered(0, 10_000));
    const found = await searchFile(file, 'line 9', { limit: 3, context: 0 });
    expect(found.matches.map((m) => m.line)).toEqual([9, 90, 91]);
    expect(found.more).toBe(true);
  });
});
