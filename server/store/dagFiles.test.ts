import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import {
  createDagFile,
  dagVersion,
  deleteDagFile,
  findDagFile,
  renameDagFile,
  replaceDagFile,
} from './dagFiles';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dag-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('dagVersion', () => {
  it('is the sha256 of the UTF-8 text, so any change of content changes it and equal texts agree', () => {
    expect(dagVersion('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(dagVersion('steps: []\n')).toBe(dagVersion('steps: []\n'));
    expect(dagVersion('a: 1\n')).not.toBe(dagVersion('a: 2\n')); // same size
    expect(dagVersion('é')).not.toBe(dagVersion('e'));
  });
});

describe('findDagFile', () => {
  it('finds <name>.yaml or .yml, else the file whose name: key is the name, and never leaves the directory', async () => {
    writeFileSync(path.join(dir, 'a.yml'), 'steps: [echo a]\n');
    writeFileSync(path.join(dir, 'other.yaml'), 'name: declared\nsteps: [echo b]\n');
    expect(await findDagFile(dir, 'a')).toBe(path.join(dir, 'a.yml'));
    expect(await findDagFile(dir, 'declared')).toBe(path.join(dir, 'other.yaml'));
    expect(await findDagFile(dir, 'missing')).toBeNull();
    await expect(findDagFile(dir, '../a')).rejects.toBeInstanceOf(InvalidNameError);
  });
});

describe('replaceDagFile', () => {
  it('writes only over the version it was given, keeps the mode and leaves no temp file', async () => {
    const file = path.join(dir, 'a.yaml');
    writeFileSync(file, 'one');
    chmodSync(file, 0o640);
    expect(await replaceDagFile(file, 'two', dagVersion('zero'))).toEqual({
      written: false,
      current: { file, text: 'one', version: dagVersion('one') },
    });
    expect(await replaceDagFile(file, 'two', dagVersion('one'))).toEqual({
      written: true,
      version: dagVersion('two'),
    });
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['a.yaml']);
  });

  it('lets one of two concurrent writers from the same version win', async () => {
    const file = path.join(dir, 'a.yaml');
    writeFileSync(file, 'one');
    const v = dagVersion('one');
    const [a, b] = await Promise.all([replaceDagFile(file, 'two', v), replaceDagFile(file, 'three', v)]);
    expect([a.written, b.written]).toEqual([true, false]);
    expect(readFileSync(file, 'utf8')).toBe('two');
  });

  it('reports a removed file as current null', async () => {
    expect(await replaceDagFile(path.join(dir, 'gone.yaml'), 'x', dagVersion(''))).toEqual({
      written: false,
      current: null,
    });
  });
});

describe('create, rename, delete', () => {
  it('creates once, renames without replacing a file of the new name, deletes once', async () => {
    expect(await createDagFile(dir, 'a', 'steps: [echo a]\n')).toBe(true);
    expect(await createDagFile(dir, 'a', 'other')).toBe(false);
    writeFileSync(path.join(dir, 'b.yaml'), 'b');
    expect(await renameDagFile(path.join(dir, 'a.yaml'), 'b')).toEqual({
      renamed: false,
      file: path.join(dir, 'b.yaml'),
    });
    expect(readFileSync(path.join(dir, 'b.yaml'), 'utf8')).toBe('b');
    expect(await renameDagFile(path.join(dir, 'a.yaml'), 'c')).toEqual({
      renamed: true,
      file: path.join(dir, 'c.yaml'),
    });
    expect(readdirSync(dir).sort()).toEqual(['b.yaml', 'c.yaml']);
    expect(await deleteDagFile(path.join(dir, 'c.yaml'))).toBe(true);
    expect(await deleteDagFile(path.join(dir, 'c.yaml'))).toBe(false);
  });
});
