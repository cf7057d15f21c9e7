import { describe, expect, it } from 'vitest';
import { LineIndex, LineIndexCache, STRIDE } from './logLineIndex';

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
    expect(index.checkpointFor(STRIDE * 2 - 1)).toEqual({ offset: index.checkpoints[1], line: STRIDE });
    expect(index.checkpointFor(STRIDE * 9)).toEqual({ offset: index.checkpoints[2], line: STRIDE * 2 });
  });
});

describe('LineIndexCache', () => {
  it('reads each byte of a file once when many requests index it at once', async () => {
    const text = Buffer.from(numbered(0, 200_000));
    let read = 0;
    const readAt = async (buffer: Buffer, length: number, position: number) => {
      const n = text.copy(buffer, 0, position, position + length);
      read += n;
      return n;
    };
    const cache = new LineIndexCache();
    const indexes = await Promise.all(
      Array.from({ length: 8 }, () => cache.indexOf('/f', 1, text.length, readAt)),
    );
    expect(new Set(indexes).size).toBe(1);
    expect(indexes[0].complete).toBe(200_000);
    expect(read).toBe(text.length);
  });

  it('starts again for a replaced or shorter file, and keeps the files used last', async () => {
    const readAt = (text: Buffer) => async (buffer: Buffer, length: number, position: number) =>
      text.copy(buffer, 0, position, position + length);
    const cache = new LineIndexCache(2);
    const long = Buffer.from(numbered(0, 300));
    const first = await cache.indexOf('/a', 1, long.length, readAt(long));
    expect(await cache.indexOf('/a', 1, long.length, readAt(long))).toBe(first);
    const short = Buffer.from('new\n');
    expect((await cache.indexOf('/a', 1, short.length, readAt(short))).complete).toBe(1);
    expect(await cache.indexOf('/a', 2, short.length, readAt(short))).not.toBe(first);
    const a = await cache.indexOf('/a', 2, short.length, readAt(short));
    await cache.indexOf('/b', 1, short.length, readAt(short));
    await cache.indexOf('/c', 1, short.length, readAt(short));
    expect(await cache.indexOf('/a', 2, short.length, readAt(short))).not.toBe(a);
  });
});
