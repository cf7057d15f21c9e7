import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dotenvLoadOrder, loadDotenv } from './dotenv';
import { tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('dotenv', () => {
  it('loads .env first, then the listed files once each', () => {
    expect(dotenvLoadOrder(['a.env', '.env', 'a.env'])).toEqual(['.env', 'a.env']);
    expect(dotenvLoadOrder([])).toEqual(['.env']);
  });

  it('reads each file from the working directory, else the DAG file directory, and skips missing ones', async () => {
    const work = join(dir, 'work');
    const file = join(dir, 'dags');
    mkdirSync(work);
    mkdirSync(file);
    writeFileSync(join(work, '.env'), 'A=work\nB="quoted value"\n');
    writeFileSync(join(file, '.env'), 'A=file-dir\n');
    writeFileSync(join(file, 'extra.env'), '# comment\nA=extra\nC=3\n');
    const result = await loadDotenv(['extra.env', 'missing.env'], [work, file]);
    expect(result.values).toEqual([
      ['A', 'work'],
      ['B', 'quoted value'],
      ['A', 'extra'],
      ['C', '3'],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('reads an absolute path as given', async () => {
    writeFileSync(join(dir, 'abs.env'), 'X=1\n');
    expect((await loadDotenv([join(dir, 'abs.env')], ['/nonexistent'])).values).toEqual([['X', '1']]);
  });
});
