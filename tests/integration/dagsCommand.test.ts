// `dagu dags push` and `pull` on the file backend, through the real bin/dagu: the DAG definitions are the
// DAGs directory, so a push copies a folder's DAG files into it and a pull copies them out.

import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dagu, tempHome, type TempHome } from './harness';

const A = 'steps:\n  - name: a\n    run: echo a\n';

let h: TempHome;
afterEach(() => h.cleanup());

describe('dagu dags push and pull on files', () => {
  it('copies a folder into the DAGs directory and back out, and --delete trims the DAGs directory', async () => {
    h = tempHome({ DAGU_SKIP_EXAMPLES: '1' });
    h.writeDag('old', A);
    const repo = path.join(h.home, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'etl.yml'), A);
    const pushed = await dagu(['dags', 'push', '--delete', repo], h.env);
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/^created +etl\ndeleted +old\n/);
    expect(readdirSync(h.dags)).toEqual(['etl.yml']);
    const out = path.join(h.home, 'out');
    expect((await dagu(['dags', 'pull', out], h.env)).code).toBe(0);
    expect(readFileSync(path.join(out, 'etl.yml'), 'utf8')).toBe(A);
  });

  it('answers --help with exit 0 and an unknown option with exit 2', async () => {
    h = tempHome();
    const help = await dagu(['dags', 'push', '--help'], h.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--dry-run');
    expect((await dagu(['dags', 'pull', '--nope', 'x'], h.env)).code).toBe(2);
    expect((await dagu(['dags', 'push'], h.env)).code).toBe(2);
  });
});
