import type * as Fs from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// Each call answers as the descriptor would: a number of bytes written, or an error code.
const answers: Array<number | string> = [];
const written: string[] = [];

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const writeSync = (fd: number, bytes: Buffer, offset: number, length: number) => {
    const a = answers.shift() ?? length;
    if (typeof a === 'string') throw Object.assign(new Error(a), { code: a });
    written.push(`fd:${bytes.subarray(offset, offset + a).toString()}`);
    return a;
  };
  return { ...fs, writeSync, default: { ...fs, writeSync } };
});

const { printErr } = await import('./stdio');

describe('the short commands’ output', () => {
  beforeEach(() => {
    answers.length = 0;
    written.length = 0;
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(`stream:${Buffer.from(chunk).toString()}`);
      return true;
    });
  });

  it('hands the rest to the stream once the descriptor would block, and keeps later lines behind it', () => {
    printErr('one\n');
    answers.push(2, 'EAGAIN');
    printErr('two\n');
    // The descriptor could take more now, but the stream still holds "o\n": the next line must not overtake it.
    printErr('three\n');
    expect(written).toEqual(['fd:one\n', 'fd:tw', 'stream:o\n', 'stream:three\n']);
  });
});
