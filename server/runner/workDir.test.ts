import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
