// `dagu dags pull`'s work on a memory store and a temp folder: files written atomically and only when they
// differ, a DAG's existing file kept, and the folder trimmed to the definitions only when asked.

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryDagDefinitions } from '../../store/memoryDagDefinitions';
import { MemoryRunStore } from '../../store/memoryRunStore';
import { pullDags } from './pullDags';
import { pushDags } from './pushDags';

const A = 'steps:\n  - name: a\n    run: echo a\n';
const B = 'steps:\n  - name: b\n    run: echo b\n';

let root: string;
let dir: string;
let store: MemoryDagDefinitions;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'dagu-pull-'));
  dir = path.join(root, 'checkout');
  store = new MemoryDagDefinitions();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const pull = (over: { deleteAbsent?: boolean; allowEmpty?: boolean; dryRun?: boolean } = {}) =>
  pullDags({ store, dir, deleteAbsent: false, allowEmpty: false, dryRun: false, ...over });
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');

describe('pullDags', () => {
  it('writes every DAG into a folder it creates, under each DAG’s file name', async () => {
    await store.put('etl', A);
    await store.put('report', B, { fileName: 'report.yml' });
    expect((await pull()).actions).toEqual([
      { name: 'etl', action: 'created' },
      { name: 'report', action: 'created' },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['etl.yaml', 'report.yml']);
    expect(read('report.yml')).toBe(B);
  });

  it('leaves a file with the same text alone, and replaces a different one in its own name and mode', async () => {
    await store.put('etl', A);
    await store.put('report', A);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'etl.yaml'), A);
    writeFileSync(path.join(dir, 'report.yml'), B);
    chmodSync(path.join(dir, 'report.yml'), 0o600);
    const inode = statSync(path.join(dir, 'etl.yaml')).ino;
    expect((await pull()).actions).toEqual([
      { name: 'etl', action: 'unchanged' },
      { name: 'report', action: 'updated' },
    ]);
    expect(statSync(path.join(dir, 'etl.yaml')).ino).toBe(inode);
    expect(read('report.yml')).toBe(A);
    expect(statSync(path.join(dir, 'report.yml')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['etl.yaml', 'report.yml']); // no temp file, no report.yaml
  });

  it('removes the DAG files the definitions do not have only when asked to, and nothing else', async () => {
    await store.put('etl', A);
    mkdirSync(dir);
    for (const f of ['gone.yaml', 'bad name.yml', 'notes.txt', '.hidden.yaml'])
      writeFileSync(path.join(dir, f), A);
    await pull();
    expect(existsSync(path.join(dir, 'gone.yaml'))).toBe(true);
    expect((await pull({ deleteAbsent: true })).actions).toEqual([
      { name: 'bad name.yml', action: 'deleted' },
      { name: 'etl', action: 'unchanged' },
      { name: 'gone.yaml', action: 'deleted' },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['.hidden.yaml', 'etl.yaml', 'notes.txt']);
  });

  it('refuses a --delete pull with no definitions at all, which would empty the folder, unless allowed', async () => {
    mkdirSync(dir);
    for (const f of ['etl.yaml', 'report.yml', 'notes.txt']) writeFileSync(path.join(dir, f), A);
    const refusal = {
      refused:
        `there are no DAG definitions, so --delete would remove all 2 DAG files of ${dir}; ` +
        'check the storage settings, or add --allow-empty to remove them all',
      actions: [],
    };
    expect(await pull({ deleteAbsent: true })).toEqual(refusal);
    expect(await pull({ deleteAbsent: true, dryRun: true })).toEqual(refusal);
    expect(readdirSync(dir).sort()).toEqual(['etl.yaml', 'notes.txt', 'report.yml']);

    // Without --delete nothing is removed anyway; an empty folder has nothing to lose.
    expect(await pull()).toEqual({ refused: null, actions: [] });
    const empty = path.join(root, 'empty');
    expect(
      await pullDags({ store, dir: empty, deleteAbsent: true, allowEmpty: false, dryRun: false }),
    ).toEqual({ refused: null, actions: [] });

    expect(await pull({ deleteAbsent: true, allowEmpty: true })).toEqual({
      refused: null,
      actions: [
        { name: 'etl.yaml', action: 'deleted' },
        { name: 'report.yml', action: 'deleted' },
      ],
    });
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('in a dry run, reports what would change and writes nothing, not even the folder', async () => {
    await store.put('etl', A);
    expect((await pull({ dryRun: true, deleteAbsent: true })).actions).toEqual([
      { name: 'etl', action: 'created' },
    ]);
    expect(existsSync(dir)).toBe(false);
  });

  it('gives back, file for file, a folder that was pushed', async () => {
    const repo = path.join(root, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'etl.yaml'), A);
    writeFileSync(path.join(repo, 'report.yml'), '# keep this comment\n' + B);
    mkdirSync(path.join(root, 'dags'));
    const pushed = await pushDags({
      store,
      runs: new MemoryRunStore(),
      dir: repo,
      dagsDir: path.join(root, 'dags'),
      deleteAbsent: false,
      allowEmpty: false,
      dryRun: false,
      by: 'test',
    });
    expect(pushed.invalid).toEqual([]);
    await pull();
    for (const f of ['etl.yaml', 'report.yml'])
      expect(read(f)).toBe(readFileSync(path.join(repo, f), 'utf8'));
  });
});
