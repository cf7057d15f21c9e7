import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileExclusive, mkdirExclusive, readJsonFile, writeFileAtomic } from './fsutil';

describe('fsutil', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-fsutil-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('replaces a file so that concurrent readers only ever see a whole version', async () => {
    const file = path.join(dir, 'status.json');
    const version = (n: number) => JSON.stringify({ n, padding: 'x'.repeat(200_000) });
    await writeFileAtomic(file, version(0));
    let writing = true;
    const writer = (async () => {
      for (let n = 1; n <= 30; n++) await writeFileAtomic(file, version(n));
      writing = false;
    })();
    const seen = new Set<number>();
    while (writing) {
      const result = await readJsonFile<{ n: number }>(file);
      expect(result.kind).toBe('ok');
      if (result.kind === 'ok') seen.add(result.value.n);
    }
    await writer;
    expect(seen.size).toBeGreaterThan(0);
    expect(await fs.readdir(dir)).toEqual(['status.json']);
  });

  it('creates a file exclusively with its full content, once', async () => {
    const file = path.join(dir, 'lock');
    expect(await createFileExclusive(file, 'first')).toBe(true);
    expect(await createFileExclusive(file, 'second')).toBe(false);
    expect(await fs.readFile(file, 'utf8')).toBe('first');
    expect(await fs.readdir(dir)).toEqual(['lock']);
  });

  it('lets exactly one of many concurrent exclusive creates win', async () => {
    const file = path.join(dir, 'lock');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createFileExclusive(file, `c${i}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await fs.readFile(file, 'utf8')).toBe(`c${results.indexOf(true)}`);
  });

  it('makes a directory exclusively, creating missing parents', async () => {
    const target = path.join(dir, 'a', 'b', 'run');
    expect(await mkdirExclusive(target)).toBe(true);
    expect(await mkdirExclusive(target)).toBe(false);
    const results = await Promise.all([
      mkdirExclusive(path.join(dir, 'x')),
      mkdirExclusive(path.join(dir, 'x')),
    ]);
    expect(results.sort()).toEqual([false, true]);
  });

  it('tells a missing file from a corrupt one, naming the path and the reason', async () => {
    const file = path.join(dir, 'f.json');
    expect(await readJsonFile(file)).toEqual({ kind: 'missing' });
    await fs.writeFile(file, '');
    expect(await readJsonFile(file)).toEqual({ kind: 'corrupt', error: 'empty file', path: file });
    await fs.writeFile(file, '{"a": 1');
    expect(await readJsonFile(file)).toMatchObject({
      kind: 'corrupt',
      error: expect.stringMatching(/^invalid JSON/),
    });
    await fs.writeFile(file, '{"a": 1}');
    expect(await readJsonFile(file, () => 'field b is missing')).toEqual({
      kind: 'corrupt',
      error: 'field b is missing',
      path: file,
    });
    expect(await readJsonFile(file)).toEqual({ kind: 'ok', value: { a: 1 } });
    expect(await readJsonFile(dir)).toMatchObject({ kind: 'corrupt', path: dir });
  });
});
