import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDagFile, localDocumentText } from './subDagTarget';
import { tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('dagu-target-')));
afterEach(() => cleanup());

function file(rel: string, text = 'steps:\n  - run: true\n'): string {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe('findDagFile', () => {
  it('finds a name with .yaml or .yml appended in the DAGs directory', async () => {
    const yml = file('dags/etl.yml');
    expect(await findDagFile('etl', { dagsDir: join(dir, 'dags'), callerFile: null })).toBe(yml);
  });

  it('finds a relative path, and a file stem in a subfolder', async () => {
    const nested = file('dags/team/load.yaml');
    const where = { dagsDir: join(dir, 'dags'), callerFile: null };
    expect(await findDagFile('team/load', where)).toBe(nested);
    expect(await findDagFile('load', where)).toBe(nested);
  });

  it('looks beside the calling file after the DAGs directory', async () => {
    const beside = file('elsewhere/child.yaml');
    const where = { dagsDir: join(dir, 'dags'), callerFile: join(dir, 'elsewhere', 'parent.yaml') };
    expect(await findDagFile('child', where)).toBe(beside);
  });

  it('gives null when nothing matches', async () => {
    expect(await findDagFile('nope', { dagsDir: join(dir, 'dags'), callerFile: null })).toBeNull();
  });
});

describe('localDocumentText', () => {
  it('puts the chosen document first and its sibling local documents after, without the entrypoint', async () => {
    const f = file(
      'multi.yaml',
      '# entry\nsteps:\n  - call: b\n---\nname: a\nsteps:\n  - run: echo a\n---\n\n# b runs last\nname: b\nsteps:\n  - call: a\n',
    );
    expect(await localDocumentText(f, 'b')).toBe(
      '# b runs last\nname: b\nsteps:\n  - call: a\n---\nname: a\nsteps:\n  - run: echo a\n',
    );
    expect(await localDocumentText(f, 'missing')).toBeNull();
  });
});
