import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { dagVersion, deleteDagFile, findDagFile, renameDagFile } from './dagFiles';

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

describe('rename, delete', () => {
  it('renames without replacing a file of the new name, deletes once', async () => {
    writeFileSync(path.join(dir, 'a.yaml'), 'steps: [echo a]\n');
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
