// `dagu dags push`'s work on a memory store and a temp folder: what it writes and reports, and that a folder
// with one bad file writes nothing.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DagDefinitions } from '../../store/dagDefinitions';
import { dagVersion } from '../../store/dagFiles';
import { MemoryDagDefinitions } from '../../store/memoryDagDefinitions';
import { MemoryRunStore } from '../../store/memoryRunStore';
import { pushDags, type PushOptions } from './pushDags';

const A = 'steps:\n  - name: a\n    run: echo a\n';
const B = 'steps:\n  - name: b\n    run: echo b\n';

let root: string;
let dir: string;
let store: MemoryDagDefinitions;
let runs: MemoryRunStore;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'dagu-push-'));
  dir = path.join(root, 'repo');
  mkdirSync(path.join(dir, 'sub'), { recursive: true });
  mkdirSync(path.join(root, 'dags'));
  store = new MemoryDagDefinitions();
  runs = new MemoryRunStore();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (file: string, text: string) => writeFileSync(path.join(dir, file), text);
const push = (over: Partial<PushOptions> = {}) =>
  pushDags({
    store,
    runs,
    dir,
    dagsDir: path.join(root, 'dags'),
    deleteAbsent: false,
    allowEmpty: false,
    dryRun: false,
    by: 'test',
    ...over,
  });

describe('pushDags', () => {
  it('writes every DAG file of the folder, and reports each as created, updated or unchanged', async () => {
    write('etl.yaml', A);
    write('report.yml', B);
    write('.hidden.yaml', A);
    write('notes.txt', 'not a DAG');
    writeFileSync(path.join(dir, 'sub', 'nested.yaml'), A);
    const first = await push();
    expect(first).toEqual({
      invalid: [],
      refused: null,
      warnings: [],
      failures: [],
      actions: [
        { name: 'etl', action: 'created' },
        { name: 'report', action: 'created' },
      ],
    });
    expect(await store.get('report')).toMatchObject({ yaml: B, fileName: 'report.yml', updatedBy: 'test' });
    write('etl.yaml', B);
    expect((await push()).actions).toEqual([
      { name: 'etl', action: 'updated' },
      { name: 'report', action: 'unchanged' },
    ]);
    expect((await store.get('etl'))?.yaml).toBe(B);
  });

  it('refuses the whole folder when one file is invalid, naming every problem, and writes nothing', async () => {
    await store.put('etl', A);
    write('etl.yaml', B);
    write('named.yaml', 'name: other\nsteps:\n  - name: a\n    run: echo a\n');
    write('broken.yaml', 'steps:\n  - name: a\n    run: [\n');
    write('bad name.yaml', A);
    write('twice.yaml', A);
    write('twice.yml', A);
    const before = await store.revision();
    const r = await push({ deleteAbsent: true });
    expect(r.actions).toEqual([]);
    expect(r.invalid.join('\n')).toMatch(/named\.yaml:1:1: .*must not define name/);
    expect(r.invalid.join('\n')).toMatch(/broken\.yaml:\d+:\d+: /);
    expect(r.invalid.join('\n')).toMatch(/"bad name" is not a DAG name/);
    expect(r.invalid.join('\n')).toMatch(/twice\.yml: DAG "twice" is also twice\.yaml/);
    expect(await store.revision()).toBe(before);
    expect((await store.get('etl'))?.yaml).toBe(A);
  });

  it('deletes the DAGs the folder does not have only when asked to', async () => {
    await store.put('old', A);
    write('etl.yaml', A);
    expect((await push()).actions).toEqual([{ name: 'etl', action: 'created' }]);
    expect(await store.get('old')).not.toBeNull();
    expect((await push({ deleteAbsent: true })).actions).toEqual([
      { name: 'etl', action: 'unchanged' },
      { name: 'old', action: 'deleted' },
    ]);
    expect((await store.list()).map((d) => d.name)).toEqual(['etl']);
  });

  it('refuses a --delete push of a folder with no DAG file, which would delete every DAG, unless allowed', async () => {
    await store.put('etl', A);
    await store.put('report', B);
    write('notes.txt', 'not a DAG');
    writeFileSync(path.join(dir, 'sub', 'nested.yaml'), A);
    const before = await store.revision();
    const refusal = {
      invalid: [],
      refused:
        `${dir} holds no DAG file (*.yaml, *.yml), so --delete would delete all 2 DAG definitions; ` +
        'check the folder, or add --allow-empty to delete them all',
      warnings: [],
      actions: [],
      failures: [],
    };
    expect(await push({ deleteAbsent: true })).toEqual(refusal);
    expect(await push({ deleteAbsent: true, dryRun: true })).toEqual(refusal);
    expect(await push({ deleteAbsent: true, dir: path.join(root, 'missing') })).toMatchObject({
      refused: expect.stringContaining('so --delete would delete all 2 DAG definitions'),
    });
    expect(await store.revision()).toBe(before);

    // Without --delete an empty folder changes nothing anyway.
    expect(await push()).toMatchObject({ refused: null, actions: [], failures: [] });

    expect(await push({ deleteAbsent: true, allowEmpty: true })).toMatchObject({
      refused: null,
      actions: [
        { name: 'etl', action: 'deleted' },
        { name: 'report', action: 'deleted' },
      ],
      failures: [],
    });
    expect(await store.list()).toEqual([]);
    // With nothing to delete, an empty folder is no danger and is not refused.
    expect(await push({ deleteAbsent: true })).toMatchObject({ refused: null, actions: [] });
  });

  it('in a dry run, checks and reports what would change, and writes nothing', async () => {
    await store.put('old', A);
    await store.put('etl', A);
    write('etl.yaml', B);
    write('new.yaml', A);
    const before = await store.revision();
    const r = await push({ deleteAbsent: true, dryRun: true });
    expect(r.actions).toEqual([
      { name: 'etl', action: 'updated' },
      { name: 'new', action: 'created' },
      { name: 'old', action: 'deleted' },
    ]);
    expect(await store.revision()).toBe(before);
    write('bad.yaml', 'steps: [\n');
    expect((await push({ dryRun: true })).invalid).toHaveLength(1);
  });

  it('does not delete a DAG someone edited after the push listed it, and says so', async () => {
    await store.put('old', A);
    const racing: DagDefinitions = {
      list: async () => {
        const listed = await store.list();
        await store.put('old', B); // an editor saves between the listing and the delete
        return listed;
      },
      get: (n) => store.get(n),
      getMany: (n) => store.getMany(n),
      revision: () => store.revision(),
      put: (n, y, o) => store.put(n, y, o),
      rename: (n, m, o) => store.rename(n, m, o),
      delete: (n, o) => store.delete(n, o),
    };
    const r = await push({ store: racing, deleteAbsent: true, allowEmpty: true });
    expect(r.failures).toEqual([
      { name: 'old', message: 'not deleted: it changed since the push listed it' },
    ]);
    expect((await store.get('old'))?.version).toBe(dagVersion(B));
  });

  it('does not delete a DAG that has queued or running runs, naming them, as the console refuses too', async () => {
    await store.put('busy', A);
    await store.put('idle', A);
    write('etl.yaml', A);
    await runs.markActive({ run_id: 'busy-run-1', dag_name: 'busy', queue: 'busy' });
    await runs.markActive({ run_id: 'busy-run-2', dag_name: 'busy', queue: 'busy' });
    await runs.markActive({ run_id: 'etl-run', dag_name: 'etl', queue: 'etl' });
    const refusal = {
      name: 'busy',
      message:
        'cannot delete DAG "busy" while it has queued or running runs (busy-run-1, busy-run-2); stop or dequeue them first',
    };

    // A dry run says so as well.
    const dry = await push({ deleteAbsent: true, dryRun: true });
    expect(dry.failures).toEqual([refusal]);
    expect(dry.actions).toContainEqual({ name: 'idle', action: 'deleted' });
    expect(dry.actions).not.toContainEqual({ name: 'busy', action: 'deleted' });

    const r = await push({ deleteAbsent: true });
    expect(r.failures).toEqual([refusal]);
    expect(r.actions).toEqual([
      { name: 'etl', action: 'created' },
      { name: 'idle', action: 'deleted' },
    ]);
    expect((await store.list()).map((d) => d.name).sort()).toEqual(['busy', 'etl']);

    // Once its runs are over, the next push deletes it.
    await runs.unmarkActive('busy-run-1');
    await runs.unmarkActive('busy-run-2');
    expect((await push({ deleteAbsent: true })).actions).toContainEqual({ name: 'busy', action: 'deleted' });
  });
});
