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

  it('refuses a --delete that would wipe one side because the other is empty, unless --allow-empty', async () => {
    h = tempHome({ DAGU_SKIP_EXAMPLES: '1' });
    h.writeDag('old', A);
    const typo = path.join(h.home, 'typo');
    mkdirSync(typo);
    const push = await dagu(['dags', 'push', '--delete', typo], h.env);
    expect(push.code).toBe(2);
    expect(push.stdout).toBe('');
    expect(push.stderr).toBe(
      `dagu: nothing pushed: ${typo} holds no DAG file (*.yaml, *.yml), so --delete would delete the only DAG definition; check the folder, or add --allow-empty to delete them all\n`,
    );
    expect(readdirSync(h.dags)).toEqual(['old.yaml']);
    const loose = await dagu(['dags', 'push', '--allow-empty', typo], h.env);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toContain('dagu: --allow-empty only applies with --delete');

    const checkout = path.join(h.home, 'checkout');
    expect((await dagu(['dags', 'pull', checkout], h.env)).code).toBe(0);
    const wiped = await dagu(['dags', 'push', '--delete', '--allow-empty', typo], h.env);
    expect(wiped.code, wiped.stderr).toBe(0);
    expect(wiped.stdout).toMatch(/^deleted +old\n/);
    expect(readdirSync(h.dags)).toEqual([]);

    const pull = await dagu(['dags', 'pull', '--delete', checkout], h.env);
    expect(pull.code).toBe(2);
    expect(pull.stderr).toBe(
      `dagu: nothing pulled: there are no DAG definitions, so --delete would remove the only DAG file of ${checkout}; check the storage settings, or add --allow-empty to remove them all\n`,
    );
    expect(readdirSync(checkout)).toEqual(['old.yaml']);
    const emptied = await dagu(['dags', 'pull', '--delete', '--allow-empty', checkout], h.env);
    expect(emptied.code, emptied.stderr).toBe(0);
    expect(readdirSync(checkout)).toEqual([]);
  });

  it('answers --help with exit 0 and an unknown option with exit 2', async () => {
    h = tempHome();
    const help = await dagu(['dags', 'push', '--help'], h.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--dry-run');
    expect(help.stdout).toContain('--allow-empty');
    expect((await dagu(['dags', 'pull', '--nope', 'x'], h.env)).code).toBe(2);
    expect((await dagu(['dags', 'push'], h.env)).code).toBe(2);
  });
});
