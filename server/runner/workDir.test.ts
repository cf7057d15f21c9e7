import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileRunStore } from '../store/fileRunStore';
import { testRunStatus } from '../testing/testRunStatus';
import { ensureDir, expandHome, runWorkDirPath, stepDirPath } from './workDir';
import { tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('work directories', () => {
  it('puts the per-run work directory under the data directory, by DAG and run ID', () => {
    expect(runWorkDirPath('/data', 'etl', 'r1')).toBe('/data/dag-run-work/etl/r1/root');
    expect(() => runWorkDirPath('/data', '../x', 'r1')).toThrow(/invalid DAG name/);
  });

  it('is removed with its run by the run store (history retention deletes this layout)', async () => {
    const dataDir = join(dir, 'data');
    const store = new FileRunStore({ dataDir, logDir: join(dir, 'logs') });
    const status = testRunStatus({ run_id: 'r1', dag_name: 'etl', status: 'succeeded' });
    expect(await store.createRun(status)).toMatchObject({ created: true });
    const work = runWorkDirPath(dataDir, 'etl', 'r1');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'left-behind'), 'x');
    expect(await store.deleteRun('r1')).toEqual({ deleted: true });
    expect(existsSync(join(dataDir, 'dag-run-work', 'etl', 'r1'))).toBe(false);
  });

  it('takes a relative step directory from the DAG directory and keeps an absolute or ~ one', () => {
    expect(stepDirPath('/w', null, '/h')).toBe('/w');
    expect(stepDirPath('/w', 'sub/dir', '/h')).toBe('/w/sub/dir');
    expect(stepDirPath('/w', '/abs', '/h')).toBe('/abs');
    expect(stepDirPath('/w', '~/x', '/h')).toBe('/h/x');
    expect(expandHome('~', '/h')).toBe('/h');
    expect(expandHome('~user/x', '/h')).toBe('~user/x');
  });

  it('creates a missing directory and reports a path that is a file', async () => {
    const target = join(dir, 'a', 'b');
    expect(await ensureDir(target)).toBeNull();
    expect(existsSync(target)).toBe(true);
    writeFileSync(join(dir, 'file'), '');
    expect(await ensureDir(join(dir, 'file'))).toMatch(/cannot create working directory|is not a directory/);
  });
});
