// `dagu dags push` and `pull` on the PostgreSQL backend, through the real bin/dagu: a Git-like folder goes
// into the database (checked first, all or nothing), comes back out into another folder file for file, and
// a database that cannot be used is one clear line and exit 2.

import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dagu, tempHome, type TempHome } from '../harness';
import { usePostgres } from './pgTestCluster';

const cluster = usePostgres();
let url: string;
beforeAll(async () => {
  url = await cluster().cluster.createDatabase('dags_cli');
});

const A = 'steps:\n  - name: a\n    run: echo a\n';
const B = '# from Git\nsteps:\n  - name: b\n    run: echo b\n';

let h: TempHome | null = null;
afterEach(async () => {
  h?.cleanup();
  // Each test starts from an empty table (the schema exists once the first command has migrated it).
  await cluster()
    .cluster.psql('truncate dagu.dags', 'dags_cli')
    .catch(() => undefined);
});

function home(): TempHome {
  h = tempHome({ DAGU_STORAGE_BACKEND: 'postgres', DAGU_POSTGRES_URL: url, DAGU_SKIP_EXAMPLES: '1' });
  return h;
}

async function rows(): Promise<string> {
  return cluster().cluster.psql(
    'select name, file_name, updated_by from dagu.dags order by name',
    'dags_cli',
  );
}

describe('dagu dags push and pull on PostgreSQL', () => {
  it('pushes a folder into the database, reports each DAG, and pulls it back file for file', async () => {
    const { home: dir, env } = home();
    const repo = path.join(dir, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'etl.yaml'), A);
    writeFileSync(path.join(repo, 'report.yml'), B);

    const first = await dagu(['dags', 'push', repo], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^created +etl\ncreated +report\n/);
    expect(first.stdout).toMatch(/schema dagu\): 2 created, 0 updated, 0 unchanged, 0 deleted\n$/);
    expect(await rows()).toMatch(/^etl\|etl\.yaml\|cli:dags push@.+\nreport\|report\.yml\|cli:dags push@/);

    writeFileSync(path.join(repo, 'etl.yaml'), B);
    writeFileSync(path.join(repo, 'new.yaml'), A);
    const plan = await dagu(['dags', 'push', '--dry-run', repo], env);
    expect(plan.stdout).toContain('dry run, nothing written: 1 created, 1 updated, 1 unchanged, 0 deleted');
    expect(await rows()).not.toContain('new|');
    const second = await dagu(['dags', 'push', repo], env);
    expect(second.stdout).toMatch(/^updated +etl\ncreated +new\nunchanged +report\n/);

    const out = path.join(dir, 'checkout');
    const pulled = await dagu(['dags', 'pull', out], env);
    expect(pulled.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['etl.yaml', 'new.yaml', 'report.yml']);
    for (const f of readdirSync(out))
      expect(readFileSync(path.join(out, f), 'utf8')).toBe(readFileSync(path.join(repo, f), 'utf8'));
  });

  it('refuses a folder with an invalid DAG and writes nothing; --delete removes what the folder lacks', async () => {
    const { home: dir, env } = home();
    const repo = path.join(dir, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'keep.yaml'), A);
    expect((await dagu(['dags', 'push', repo], env)).code).toBe(0);
    const before = await rows();

    writeFileSync(path.join(repo, 'broken.yaml'), 'steps:\n  - name: a\n    run: [\n');
    const refused = await dagu(['dags', 'push', '--delete', repo], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/broken\.yaml:\d+:\d+: /);
    expect(refused.stderr).toContain(`dagu: nothing pushed: 1 problem in ${repo}`);
    expect(await rows()).toBe(before);

    const other = path.join(dir, 'other');
    mkdirSync(other);
    writeFileSync(path.join(other, 'only.yaml'), A);
    const replaced = await dagu(['dags', 'push', '--delete', other], env);
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toMatch(/^deleted +keep\ncreated +only\n/);
    expect(await rows()).toMatch(/^only\|/);
  });

  it('--delete leaves a DAG with a queued run, says why and exits 1, and deletes it once the run is gone', async () => {
    const { home: dir, env } = home();
    const repo = path.join(dir, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'busy.yaml'), A);
    writeFileSync(path.join(repo, 'idle.yaml'), B);
    expect((await dagu(['dags', 'push', repo], env)).code).toBe(0);
    // No scheduler runs here: the queued run stays queued, which is live as much as a running one.
    const queued = await dagu(['enqueue', '--run-id', 'busy-queued-1', 'busy'], env);
    expect(queued.code, queued.stderr).toBe(0);

    const lean = path.join(dir, 'lean');
    mkdirSync(lean);
    const before = await rows();
    const wipe = await dagu(['dags', 'push', '--delete', lean], env);
    expect(wipe.code).toBe(2);
    expect(wipe.stderr).toBe(
      `dagu: nothing pushed: ${lean} holds no DAG file (*.yaml, *.yml), so --delete would delete all 2 DAG definitions; check the folder, or add --allow-empty to delete them all\n`,
    );
    expect(await rows()).toBe(before);
    const refused = await dagu(['dags', 'push', '--delete', '--allow-empty', lean], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'dagu: busy: cannot delete DAG "busy" while it has queued or running runs (busy-queued-1); stop or dequeue them first',
    );
    expect(refused.stdout).toMatch(/^deleted +idle\n/);
    expect(await rows()).toMatch(/^busy\|busy\.yaml\|/);

    expect((await dagu(['dequeue', 'busy-queued-1'], env)).code).toBe(0);
    const done = await dagu(['dags', 'push', '--delete', '--allow-empty', lean], env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^deleted +busy\n/);
    expect(await rows()).toBe('');
  });

  it('fails with one line and exit 2 when the database cannot be reached', async () => {
    h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: 'postgres://nobody:secret@127.0.0.1:1/x',
    });
    mkdirSync(path.join(h.home, 'repo'));
    const r = await dagu(['dags', 'pull', path.join(h.home, 'repo')], h.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^dagu: cannot connect to PostgreSQL at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/x: /,
    );
    expect(r.stderr).not.toContain('secret');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
  it('a DAG it does not have is named as missing from the database, not from the local copy', async () => {
    const { env } = home();
    const where = `the DAG definitions of ${url} (schema dagu)`;
    const cases: Array<[string[], string, number]> = [
      [['start', 'nope'], `dagu: DAG "nope" not found in ${where}\n`, 2],
      [['validate', 'nope'], `dagu: DAG "nope" not found in ${where}\n`, 2],
      [
        ['status', 'nope'],
        `dagu: no DAG or run named "nope": no such DAG in ${where}, no run of such a DAG and no run with that ID\n`,
        1,
      ],
    ];
    for (const [args, stderr, code] of cases) {
      const r = await dagu(args, env);
      expect(r.stderr, args.join(' ')).toBe(stderr);
      expect(r.code, args.join(' ')).toBe(code);
    }
  });
});
