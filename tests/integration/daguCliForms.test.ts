// Dagu's command-line forms through the real `bin/dagu`: `start --params` before the DAG, a DAG with
// `--run-id` for status/stop/restart/retry, and the everyday commands dry, history, ls, ps, cleanup and schema,
// with their output and exit codes. Our run-ID forms keep working beside them.

import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dagu, eventually, startService, tempHome, type Service, type TempHome } from './harness';

let h: TempHome;
const services: Service[] = [];
beforeEach(() => {
  h = tempHome();
  h.writeDag(
    'etl',
    'params: X=0\ntags: [nightly]\nschedule: "0 2 * * *"\nsteps:\n  - name: a\n    run: echo "x=$X"\n',
  );
  // The first run of `slow` waits (until stopped); later runs see the marker and end at once.
  h.writeDag(
    'slow',
    [
      'steps:',
      '  - name: wait',
      '    run: |',
      '      if [ -f "$DAGU_HOME/slow-marker" ]; then echo again; exit 0; fi',
      '      touch "$DAGU_HOME/slow-marker"',
      '      sleep 60',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop('SIGKILL');
  h.cleanup();
});

interface Status {
  run_id: string;
  dag_name: string;
  status: string;
  attempt: number;
  params: string[];
  started_at: string | null;
  finished_at: string | null;
}

async function statusOf(...args: string[]): Promise<Status> {
  const r = await dagu(['status', '--json', ...args], h.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

async function startQuiet(...args: string[]): Promise<Status> {
  const r = await dagu(['start', '--quiet', ...args], h.env);
  expect(r.code, r.stderr).toBe(0);
  return statusOf(dagOf(args));
}

/** The DAG word of a `start` command line: the first word that is not an option or an option's value. */
function dagOf(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') break;
    if (['-p', '--params', '-r', '--run-id', '--labels', '--tags'].includes(args[i])) i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  throw new Error(`no DAG in ${args.join(' ')}`);
}

/** Starts the first run of `slow` in the background and resolves once it is running. */
async function runningSlow(dag = 'slow'): Promise<Status> {
  const s = startService(['start', dag], h.env);
  services.push(s);
  return eventually(async () => {
    const r = await dagu(['status', '--json', dag], h.env);
    const st = r.code === 0 ? (JSON.parse(r.stdout) as Status) : null;
    return st?.status === 'running' ? st : null;
  });
}

describe('dagu start with Dagu params', () => {
  it('takes --params and -p before the DAG, with Dagu quoting, and words after --', async () => {
    expect((await startQuiet('--params', 'X=1', 'etl')).params).toEqual(['X=1']);
    expect((await startQuiet('-p', '"X=2"', 'etl')).params).toEqual(['X=2']);
    expect((await startQuiet('-p', 'X="a b"', 'etl')).params).toEqual(['X=a b']);
    expect((await startQuiet('etl', '--', 'X=3')).params).toEqual(['X=3']);
    const named = await startQuiet('-r', 'my-run-1', 'etl');
    expect(named).toMatchObject({ run_id: 'my-run-1', status: 'succeeded' });
  });
});

describe("Dagu's --dagu-home", () => {
  it('names the home like --home, after the command word as Dagu writes it', async () => {
    const { DAGU_HOME: _home, ...env } = h.env;
    const r = await dagu(['start', '--dagu-home', h.home, '--quiet', 'etl'], env);
    expect(r.code, r.stderr).toBe(0);
    expect((await statusOf('etl')).status).toBe('succeeded');
  });
});

describe('status, stop, restart and retry of a DAG', () => {
  it("status lists the run's artifacts with their sizes", async () => {
    h.writeDag(
      'arts',
      'steps:\n  - action: artifact.write\n    with: {path: reports/a.md, content: hello}\n',
    );
    expect((await dagu(['start', 'arts'], h.env)).code).toBe(0);
    const r = await dagu(['status', 'arts'], h.env);
    expect(r.stdout).toContain('  artifacts (1):\n    reports/a.md (5 bytes)\n');
    expect((await dagu(['start', 'etl'], h.env)).code).toBe(0);
    const plain = await dagu(['status', 'etl'], h.env);
    expect(plain.stdout).toContain('succeeded');
    expect(plain.stdout).not.toContain('artifacts');
  });

  it("status <dag> is the DAG's latest run; --run-id picks one of its runs; run IDs still work", async () => {
    const first = await startQuiet('-p', 'X=1', 'etl');
    const second = await startQuiet('-p', 'X=2', 'etl');
    expect((await statusOf('etl')).run_id).toBe(second.run_id);
    expect((await statusOf('--run-id', first.run_id, 'etl')).params).toEqual(['X=1']);
    expect((await statusOf(first.run_id)).params).toEqual(['X=1']);
    const text = await dagu(['status', 'etl'], h.env);
    expect(text.stdout).toMatch(
      new RegExp(`^etl ${second.run_id} \\(attempt 1\\): succeeded\\n  succeeded  a\\n$`),
    );
  });

  it('status of an unknown DAG or a run of another DAG exits 1 naming it', async () => {
    const run = await startQuiet('etl');
    const unknown = await dagu(['status', 'nope'], h.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^dagu: no DAG or run named "nope"/);
    const other = await dagu(['status', '--run-id', run.run_id, 'slow'], h.env);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe(
      `dagu: DAG slow has no run "${run.run_id}" (run ${run.run_id} is a run of DAG etl)\n`,
    );
    const never = await dagu(['status', 'slow'], h.env);
    expect([never.code, never.stderr]).toEqual([1, 'dagu: DAG slow has no runs yet\n']);
  });

  it('stop <dag> stops its running run; with nothing running it says so and exits 0', async () => {
    const idle = await dagu(['stop', 'etl'], h.env);
    expect([idle.code, idle.stdout]).toEqual([0, 'no running run of etl to stop\n']);
    const run = await runningSlow();
    const stop = await dagu(['stop', 'slow'], h.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toBe(`stop requested for slow ${run.run_id} (running)\n`);
    await eventually(async () => (await statusOf(run.run_id)).status === 'aborted');
  });

  it('stop --run-id ID <dag> stops that run', async () => {
    const run = await runningSlow();
    const stop = await dagu(['stop', '--run-id', run.run_id, 'slow'], h.env);
    expect(stop.code, stop.stderr).toBe(0);
    await eventually(async () => (await statusOf(run.run_id)).status === 'aborted');
  });

  it('restart <dag> stops its running run and starts it again; with none running it exits 1', async () => {
    const idle = await dagu(['restart', 'etl'], h.env);
    expect(idle.code).toBe(1);
    expect(idle.stderr).toMatch(/^dagu: DAG etl is not running \(it has no runs\)/);
    const run = await runningSlow();
    const restart = await dagu(['restart', '--quiet', 'slow'], h.env);
    expect(restart.code, restart.stderr).toBe(0);
    expect((await statusOf(run.run_id)).status).toBe('aborted');
    const latest = await statusOf('slow');
    expect(latest.run_id).not.toBe(run.run_id);
    expect(latest.status).toBe('succeeded');
  });

  it("restart waits the DAG's restart_wait_sec between the stop and the new start, as Dagu does", async () => {
    const slow = readFileSync(path.join(h.home, 'dags', 'slow.yaml'), 'utf8');
    h.writeDag('pause', `restart_wait_sec: 2\n${slow.replaceAll('slow-marker', 'pause-marker')}`);
    const run = await runningSlow('pause');
    const restart = await dagu(['restart', 'pause'], h.env);
    expect(restart.code, restart.stderr).toBe(0);
    expect(restart.stderr).toMatch(/"seconds":2,"msg":"Waiting before the restart \(restart_wait_sec\)"/);
    const stopped = await statusOf(run.run_id);
    const latest = await statusOf('pause');
    expect([stopped.status, latest.status]).toEqual(['aborted', 'succeeded']);
    // Judged on the runs' own times: the new run starts at least 2 s after the old one ended.
    const gapMs = Date.parse(latest.started_at!) - Date.parse(stopped.finished_at!);
    expect(gapMs).toBeGreaterThanOrEqual(2000);
  });

  it('retry --run-id ID <dag> runs attempt 2; without --run-id it is a usage error', async () => {
    const run = await startQuiet('-p', 'X=7', 'etl');
    const retry = await dagu(['retry', '--quiet', '--run-id', run.run_id, 'etl'], h.env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(await statusOf(run.run_id)).toMatchObject({ attempt: 2, status: 'succeeded', params: ['X=7'] });
    const bare = await dagu(['retry', 'etl'], h.env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^dagu: dagu retry etl needs --run-id/);
    const missing = await dagu(['retry', '--run-id', 'no-such-run', 'etl'], h.env);
    expect([missing.code, missing.stderr]).toEqual([1, 'dagu: DAG etl has no run "no-such-run"\n']);
    // Our own form, by run ID alone, still works.
    expect((await dagu(['retry', '--quiet', run.run_id], h.env)).code).toBe(0);
    expect((await statusOf(run.run_id)).attempt).toBe(3);
  });
});

describe("Dagu's retry --step, status --sub-run-id and -N/--name", () => {
  interface StepView {
    name: string;
    status: string;
    sub_runs?: Array<{ run_id: string }>;
  }
  const stepsOf = async (...args: string[]) =>
    (JSON.parse((await dagu(['status', '--json', ...args], h.env)).stdout) as { steps: StepView[] }).steps;

  it('retry --step runs that step alone; the others keep their status, its dependents too', async () => {
    h.writeDag(
      'fix',
      [
        'steps:',
        '  - name: a',
        '    run: echo A',
        '  - name: b',
        '    run: test -e "$DAGU_HOME/fixed"',
        '    depends: [a]',
        '  - name: c',
        '    run: echo C',
        '    depends: [b]',
        'handler_on:',
        '  success:',
        '    run: echo ok',
        '',
      ].join('\n'),
    );
    const first = await dagu(['start', '--quiet', 'fix'], h.env);
    expect(first.code).toBe(1);
    const run = await statusOf('fix');
    writeFileSync(path.join(h.home, 'fixed'), '');
    const retry = await dagu(['retry', '--quiet', '--run-id', run.run_id, '--step', 'b', 'fix'], h.env);
    expect(retry.code, retry.stderr).toBe(0);
    // As Dagu 1.30.2: b runs again, c keeps the aborted status it had, and the run ends succeeded.
    expect(await statusOf(run.run_id)).toMatchObject({ attempt: 2, status: 'succeeded' });
    expect((await stepsOf(run.run_id)).map((s) => [s.name, s.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'aborted'],
    ]);
    const unknown = await dagu(['retry', '--run-id', run.run_id, '--step', 'nope', 'fix'], h.env);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      `dagu: run ${run.run_id} of DAG fix has no step "nope" (its steps: a, b, c)\n`,
    ]);
    expect((await statusOf(run.run_id)).attempt).toBe(2);
    const help = await dagu(['retry', '--help'], h.env);
    expect(help.stdout).toContain('--step <name>');
  });

  it('retry --step X --downstream runs X and the steps reachable from it again, no others', async () => {
    // Upstream's TestStepRetryWithDownstreamResetsOnlyReachableDescendants: A -> B -> C, and A -> D.
    const line = (x: string) => `    run: echo ${x} >> "$DAGU_HOME/seen.txt"`;
    h.writeDag(
      'down',
      [
        'type: graph',
        'steps:',
        '  - name: A',
        line('A'),
        '  - name: B',
        line('B'),
        '    depends: [A]',
        '  - name: C',
        line('C'),
        '    depends: [B]',
        '  - name: D',
        line('D'),
        '    depends: [A]',
        '',
      ].join('\n'),
    );
    const seen = () => readFileSync(path.join(h.home, 'seen.txt'), 'utf8').trim().split('\n').sort().join('');
    expect((await dagu(['start', '--quiet', 'down'], h.env)).code).toBe(0);
    expect(seen()).toBe('ABCD');
    const run = await statusOf('down');
    const again = await dagu(
      ['retry', '--quiet', '--run-id', run.run_id, '--step', 'B', '--downstream', 'down'],
      h.env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(seen()).toBe('ABBCCD');
    expect(await statusOf(run.run_id)).toMatchObject({ attempt: 2, status: 'succeeded' });
    // --downstream says which steps besides the --step one run again: without one it is refused.
    const alone = await dagu(['retry', '--run-id', run.run_id, '--downstream', 'down'], h.env);
    expect([alone.code, alone.stderr]).toEqual([2, 'dagu: --downstream requires --step\n']);
  });

  it('status --run-id ID --sub-run-id SUB <dag> shows a sub-run under that run, at any depth', async () => {
    h.writeDag('leaf', 'steps:\n  - name: l\n    run: echo leaf\n');
    h.writeDag('mid', 'steps:\n  - name: m\n    call: leaf\n');
    h.writeDag('top', 'steps:\n  - name: t\n    call: mid\n');
    const top = await startQuiet('top');
    const midId = (await stepsOf(top.run_id))[0].sub_runs![0].run_id;
    const leafId = (await stepsOf(midId))[0].sub_runs![0].run_id;
    const sub = await statusOf('--run-id', top.run_id, '--sub-run-id', leafId, 'top');
    expect(sub).toMatchObject({ run_id: leafId, dag_name: 'leaf', status: 'succeeded' });
    expect((await statusOf('--run-id', top.run_id, '-s', midId, 'top')).dag_name).toBe('mid');
    const text = await dagu(['status', '--run-id', top.run_id, '--sub-run-id', leafId, 'top'], h.env);
    expect(text.stdout).toMatch(new RegExp(`^leaf ${leafId} \\(attempt 1\\): succeeded\\n`));
    // A run that was not started under it, or no run at all, exits 1 as a missing run does.
    const other = await startQuiet('etl');
    const notUnder = await dagu(
      ['status', '--run-id', top.run_id, '--sub-run-id', other.run_id, 'top'],
      h.env,
    );
    expect([notUnder.code, notUnder.stderr]).toEqual([
      1,
      `dagu: run ${top.run_id} of DAG top has no sub-run "${other.run_id}" (it is not a sub-run)\n`,
    ]);
    const missing = await dagu(['status', '--run-id', top.run_id, '--sub-run-id', 'nope', 'top'], h.env);
    expect(missing.code).toBe(1);
    // Without --run-id it is a usage error.
    const bare = await dagu(['status', '--sub-run-id', leafId, 'top'], h.env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^dagu: --sub-run-id needs --run-id/);
    expect((await dagu(['status', '--help'], h.env)).stdout).toContain('-s, --sub-run-id <id>');
  });

  it('start -N runs a DAG under another name, which retry and restart keep; dry shows it', async () => {
    const started = await dagu(['start', '--quiet', '-N', 'nightly', '-p', 'X=5', 'etl'], h.env);
    expect(started.code, started.stderr).toBe(0);
    const run = await statusOf('nightly');
    expect(run).toMatchObject({ dag_name: 'nightly', params: ['X=5'], status: 'succeeded' });
    const logFile = (await stepsOf(run.run_id)) as unknown as Array<{ stdout: string }>;
    expect(readFileSync(path.join(h.home, 'logs', logFile[0].stdout), 'utf8')).toBe('x=5\n');
    expect((await dagu(['status', 'etl'], h.env)).code).toBe(1);
    const retry = await dagu(['retry', '--quiet', '--run-id', run.run_id, 'nightly'], h.env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(await statusOf(run.run_id)).toMatchObject({
      dag_name: 'nightly',
      attempt: 2,
      status: 'succeeded',
    });
    const restart = await dagu(['restart', '--quiet', '--run-id', run.run_id, 'nightly'], h.env);
    expect(restart.code, restart.stderr).toBe(0);
    const latest = await statusOf('nightly');
    expect(latest.run_id).not.toBe(run.run_id);
    expect(latest.params).toEqual(['X=5']);
    const dry = await dagu(['dry', '--name', 'other', 'etl'], h.env);
    expect(dry.stdout).toMatch(/^Dry run of other \(/);
    const bad = await dagu(['start', '-N', 'no good', 'etl'], h.env);
    expect(bad.code).toBe(2);
    for (const cmd of ['start', 'enqueue', 'dry'])
      expect((await dagu([cmd, '--help'], h.env)).stdout).toContain('-N, --name <name>');
  });

  it('enqueue -N queues a run under another name, and the scheduler starts it from the DAG file', async () => {
    const q = await dagu(['enqueue', '-N', 'late', '-p', 'X=9', 'etl'], h.env);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout).toMatch(/^queued late \S+ in queue late\n$/);
    services.push(startService(['scheduler'], h.env));
    const done = await eventually(async () => {
      const r = await dagu(['status', '--json', 'late'], h.env);
      const s = r.code === 0 ? (JSON.parse(r.stdout) as Status) : null;
      return s?.status === 'succeeded' ? s : null;
    });
    expect(done.params).toEqual(['X=9']);
    const steps = (await stepsOf(done.run_id)) as unknown as Array<{ stdout: string }>;
    expect(readFileSync(path.join(h.home, 'logs', steps[0].stdout), 'utf8')).toBe('x=9\n');
  });
});

describe("Dagu's --default-working-dir", () => {
  it('start gives a DAG without working_dir that directory, a retry works there again, and a queued run keeps it', async () => {
    // Upstream's TestStepRetryReusesOriginalWorkingDir: the step's working_dir is relative to the DAG's.
    const work = path.join(h.home, 'work');
    mkdirSync(path.join(work, 'child'), { recursive: true });
    h.writeDag(
      'wd',
      [
        'steps:',
        '  - name: target',
        '    working_dir: child',
        '    run: |',
        '      pwd >> observed.txt',
        '      if [ ! -f marker ]; then touch marker; exit 1; fi',
        '      echo retry ok >> observed.txt',
        '',
      ].join('\n'),
    );
    const first = await dagu(['start', '--quiet', '--default-working-dir', work, 'wd'], h.env);
    expect(first.code, first.stderr).toBe(1);
    const run = await statusOf('wd');
    const retry = await dagu(['retry', '--quiet', '--run-id', run.run_id, '--step', 'target', 'wd'], h.env);
    expect(retry.code, retry.stderr).toBe(0);
    const observed = readFileSync(path.join(work, 'child', 'observed.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(observed.map((l) => (l === 'retry ok' ? l : realpathSync(l)))).toEqual([
      realpathSync(path.join(work, 'child')),
      realpathSync(path.join(work, 'child')),
      'retry ok',
    ]);
    // A DAG with its own working_dir keeps it.
    h.writeDag('own', `working_dir: ${h.home}\nsteps:\n  - name: s\n    run: pwd\n`);
    const own = await dagu(['start', '--default-working-dir', work, 'own'], h.env);
    expect(own.code, own.stderr).toBe(0);
    // Enqueued: the scheduler starts the run there.
    rmSync(path.join(work, 'child', 'marker'));
    const q = await dagu(['enqueue', '--default-working-dir', work, 'wd'], h.env);
    expect(q.code, q.stderr).toBe(0);
    services.push(startService(['scheduler'], h.env));
    await eventually(async () => {
      const r = await dagu(['status', '--json', 'wd'], h.env);
      const s = r.code === 0 ? (JSON.parse(r.stdout) as Status) : null;
      return s && s.run_id !== run.run_id && s.status === 'failed' ? s : null;
    });
    expect(
      readFileSync(path.join(work, 'child', 'observed.txt'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(4);
  });
});

describe("Dagu's --labels and --tags", () => {
  interface Entry {
    name: string;
    dagRunId: string;
    status: string;
    labels?: string[];
    attempt: number;
  }
  const history = async (...args: string[]): Promise<Entry[]> => {
    const r = await dagu(['history', '--format', 'json', ...args], h.env);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Entry[];
  };
  const labelsOf = async (runId: string) =>
    ((await statusOf(runId)) as Status & { labels?: string[] }).labels;

  it("start and enqueue add them to the DAG's labels on the run's record; history filters on them", async () => {
    // `etl` has `tags: [nightly]`, the old name of `labels`.
    const prod = await startQuiet('--labels', ' Env=Prod, critical,', 'etl');
    expect(await labelsOf(prod.run_id)).toEqual(['nightly', 'env=prod', 'critical']);
    const dev = await startQuiet('--tags', 'env=dev', 'etl');
    expect(await labelsOf(dev.run_id)).toEqual(['nightly', 'env=dev']);
    h.writeDag('plain', 'steps:\n  - name: a\n    run: "true"\n');
    const plain = await startQuiet('plain');
    expect(await labelsOf(plain.run_id)).toBeUndefined();
    const q = await dagu(['enqueue', '--labels', 'team=data', 'etl'], h.env);
    expect(q.code, q.stderr).toBe(0);
    const queued = (await history('--status', 'queued'))[0];
    expect(queued.labels).toEqual(['nightly', 'team=data']);

    // Refused, exit 2 with Dagu's texts, and nothing recorded.
    const both = await dagu(['start', '--labels', 'a', '--tags', '', 'etl'], h.env);
    expect([both.code, both.stderr]).toEqual([2, 'dagu: labels and deprecated tags cannot both be set\n']);
    const bad = await dagu(['enqueue', '--labels', 'ok,bad key', 'etl'], h.env);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'dagu: invalid labels: label "bad key": label key "bad key" contains invalid characters ' +
        '(allowed: a-z, A-Z, 0-9, -, _, .)\n',
    ]);
    expect(await history()).toHaveLength(4);

    // Every filter must match, whatever the case; key, key=value, !key and globs, as Dagu's.
    const ids = async (...args: string[]) => (await history(...args)).map((e) => e.dagRunId);
    expect(await ids('--labels', 'ENV=PROD')).toEqual([prod.run_id]);
    expect(await ids('--labels', 'nightly,env')).toEqual([dev.run_id, prod.run_id]);
    expect(await ids('--tags', 'env=p*,critical')).toEqual([prod.run_id]);
    expect(await ids('--labels', '!env', 'etl')).toEqual([queued.dagRunId]);
    expect(await ids('--labels', 'env=staging')).toEqual([]);
    const table = await dagu(['history', '--labels', 'critical'], h.env);
    expect(table.stdout).toContain(prod.run_id);
    expect(table.stdout).not.toContain(dev.run_id);
    const refused = await dagu(['history', '--labels', 'a', '--tags', 'b'], h.env);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'dagu: labels and deprecated tags cannot both be set\n',
    ]);
  });

  it('a retry and a restart keep the labels of the run, which the DAG file does not have', async () => {
    const first = await startQuiet('--labels', 'env=prod', 'etl');
    h.writeDag('etl', 'labels: [changed]\nsteps:\n  - name: a\n    run: "true"\n');
    const retry = await dagu(['retry', '--quiet', first.run_id], h.env);
    expect(retry.code, retry.stderr).toBe(0);
    const again = (await statusOf(first.run_id)) as Status & { labels?: string[] };
    expect([again.attempt, again.labels]).toEqual([2, ['nightly', 'env=prod']]);
    const restart = await dagu(['restart', '--quiet', first.run_id], h.env);
    expect(restart.code, restart.stderr).toBe(0);
    const runs = await history('etl');
    expect(runs.map((e) => [e.dagRunId === first.run_id, e.labels])).toEqual([
      [false, ['nightly', 'env=prod']],
      [true, ['nightly', 'env=prod']],
    ]);
    // A new run takes the DAG file's labels as they are now.
    const fresh = await startQuiet('etl');
    expect(await labelsOf(fresh.run_id)).toEqual(['changed']);
  });
});

describe("Dagu's start --from-run-id and -q everywhere", () => {
  it('start --from-run-id runs the DAG again with the params of that run; params beside it are refused', async () => {
    const first = await startQuiet('-p', 'X=4', 'etl');
    const again = await dagu(['start', '--quiet', '--from-run-id', first.run_id, 'etl'], h.env);
    expect(again.code, again.stderr).toBe(0);
    const latest = await statusOf('etl');
    expect(latest.run_id).not.toBe(first.run_id);
    expect(latest.params).toEqual(['X=4']);
    const both = await dagu(['start', '--from-run-id', first.run_id, '-p', 'X=1', 'etl'], h.env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^dagu: parameters cannot be given with --from-run-id/);
    const missing = await dagu(['start', '--from-run-id', 'nope', 'etl'], h.env);
    expect([missing.code, missing.stderr]).toEqual([1, 'dagu: DAG etl has no run "nope"\n']);
  });

  it("accepts Dagu's global -q on every command", async () => {
    await startQuiet('etl');
    for (const args of [
      ['status', '-q', 'etl'],
      ['history', '-q', 'etl'],
      ['dry', '-q', 'etl'],
      ['validate', '-q', 'etl'],
      ['ls', '-q'],
      ['ps', '-q'],
      ['stop', '-q', 'etl'],
    ]) {
      const r = await dagu(args, h.env);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect((await dagu(['status', '--help'], h.env)).stdout).toContain('-q, --quiet');
  });
});

describe("Dagu's exec", () => {
  interface StepLog {
    name: string;
    status: string;
    stdout: string;
  }
  const stepOut = async (runId: string) => {
    const r = await dagu(['status', '--json', runId], h.env);
    const st = JSON.parse(r.stdout) as Status & { steps: StepLog[] };
    return {
      st,
      step: st.steps[0],
      out: readFileSync(path.join(h.home, 'logs', st.steps[0].stdout), 'utf8'),
    };
  };

  it('runs a command as a run named exec-<program>, with its words, env and directory; its exit code as start', async () => {
    const ok = await dagu(
      ['exec', '-q', '-r', 'ex-1', '--', 'printf', '%s|', 'two words', "it's", '$HOME'],
      h.env,
    );
    expect(ok.code, ok.stderr).toBe(0);
    const first = await stepOut('ex-1');
    expect(first.st).toMatchObject({ dag_name: 'exec-printf', status: 'succeeded' });
    expect(first.step.name).toBe('main');
    // Each word reaches the program as given: no splitting, no expansion.
    expect(first.out).toBe("two words|it's|$HOME|");
    const env = await dagu(
      [
        'exec',
        '-q',
        '-r',
        'ex-2',
        '-E',
        'FOO=bar',
        '--env',
        'N=2',
        '--workdir',
        h.dags,
        '--',
        'sh',
        '-c',
        'echo "$FOO $N $(pwd)"',
      ],
      h.env,
    );
    expect(env.code, env.stderr).toBe(0);
    expect((await stepOut('ex-2')).out).toBe(`bar 2 ${h.dags}\n`);
    const failed = await dagu(
      ['exec', '-q', '-N', 'nightly-check', '-r', 'ex-3', '--', 'sh', '-c', 'exit 3'],
      h.env,
    );
    expect(failed.code).toBe(1);
    expect((await stepOut('ex-3')).st).toMatchObject({ dag_name: 'nightly-check', status: 'failed' });
    expect((await dagu(['exec', '--env', 'NOEQUALS', '--', 'true'], h.env)).code).toBe(2);
    expect((await dagu(['exec', '--worker-label', 'a=b', '--', 'true'], h.env)).code).toBe(2);
    expect((await dagu(['--help'], h.env)).stdout).toMatch(/^ {2}exec /m);
  });
});

describe("Dagu's enqueue and dequeue forms", () => {
  const queued = async (args: string[]) => {
    const r = await dagu(['enqueue', ...args], h.env);
    expect(r.code, r.stderr).toBe(0);
    const m = /^queued (\S+) (\S+) in queue (\S+)\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    return { dag: m![1], runId: m![2], queue: m![3] };
  };

  it('enqueue takes a DAG file of the DAGs directory, -r and -u; a file elsewhere is refused', async () => {
    expect(await queued(['etl.yaml'])).toMatchObject({ dag: 'etl', queue: 'etl' });
    expect(await queued([path.join(h.dags, 'etl.yaml'), '-r', 'mine-1', '-u', 'batch'])).toEqual({
      dag: 'etl',
      runId: 'mine-1',
      queue: 'batch',
    });
    expect(await statusOf('mine-1')).toMatchObject({ status: 'queued', dag_name: 'etl' });
    const outside = path.join(h.home, 'elsewhere.yaml');
    writeFileSync(outside, 'steps:\n  - name: a\n    run: echo\n');
    const r = await dagu(['enqueue', outside], h.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not in the DAGs directory .*dagu start /);
  });

  it('dequeue takes a run ID, a queue with --dag-run DAG:ID, or a queue alone (its oldest run)', async () => {
    const first = await queued(['etl']);
    const second = await queued(['etl']);
    const third = await queued(['etl']);
    const byRef = await dagu(['dequeue', 'etl', '--dag-run', `etl:${second.runId}`], h.env);
    expect([byRef.code, byRef.stdout]).toEqual([0, `dequeued etl ${second.runId}: aborted\n`]);
    const oldest = await dagu(['dequeue', 'etl'], h.env);
    expect([oldest.code, oldest.stdout]).toEqual([0, `dequeued etl ${first.runId}: aborted\n`]);
    const ours = await dagu(['dequeue', third.runId], h.env);
    expect([ours.code, ours.stdout]).toEqual([0, `dequeued etl ${third.runId}: aborted\n`]);
    // Nothing left, another queue, a run of another DAG: exit 1, as a missing run.
    const empty = await dagu(['dequeue', 'etl'], h.env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no queued run in a queue of that name/);
    const fourth = await queued(['etl']);
    const wrongQueue = await dagu(['dequeue', 'other', '-d', `etl:${fourth.runId}`], h.env);
    expect([wrongQueue.code, wrongQueue.stderr]).toEqual([
      1,
      `dagu: run ${fourth.runId} of DAG etl is in queue etl, not other\n`,
    ]);
    const wrongDag = await dagu(['dequeue', 'etl', '-d', `slow:${fourth.runId}`], h.env);
    expect(wrongDag.code).toBe(1);
    expect((await dagu(['dequeue', 'etl', '-d', 'no-colon'], h.env)).code).toBe(2);
    expect((await dagu(['dequeue', '--help'], h.env)).stdout).toContain('-d, --dag-run <dag:run-id>');
  });
});

describe("Dagu's everyday commands", () => {
  it('dry prints the resolved params and the steps in order, and records no run', async () => {
    const r = await dagu(['dry', 'etl', '--', 'X=9'], h.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'params: X=9\nsteps, in the order they would start:\n   1. a  run: echo "x=$X"\n',
    );
    expect((await dagu(['history', 'etl'], h.env)).stderr).toMatch(/No DAG runs found/);
    const bad = await dagu(['dry', 'nope'], h.env);
    expect(bad.code).toBe(2);
  });

  it('history lists runs newest first, filtered, as a table, JSON or CSV', async () => {
    const first = await startQuiet('-p', 'X=1', 'etl');
    const second = await startQuiet('-p', 'X=2', 'etl');
    const table = await dagu(['history', 'etl'], h.env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DAG NAME\s+RUN ID\s+STATUS\s+STARTED \(UTC\)\s+DURATION\s+PARAMS$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual([second.run_id, first.run_id]);
    const json = await dagu(['history', '--json', '--limit', '1', 'etl'], h.env);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ name: 'etl', dagRunId: second.run_id, status: 'succeeded', params: 'X=2' }),
    ]);
    const none = await dagu(['history', '--status', 'failed', '--format', 'csv'], h.env);
    expect([none.code, none.stdout]).toEqual([0, 'DAG NAME,RUN ID,STATUS,STARTED (UTC),DURATION,PARAMS\n']);
    const bad = await dagu(['history', '--status', 'broken'], h.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dagu: --status "broken" is not a status/);
  });

  it('ls lists the DAGs with schedule, next run, last status and tags', async () => {
    await startQuiet('etl');
    const r = await dagu(['ls'], h.env);
    expect(r.code).toBe(0);
    const [header, etl, slow] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME\s+SCHEDULE\s+NEXT_RUN\s+LAST_STATUS\s+LAST_STARTED\s+TAGS$/);
    expect(etl).toMatch(/^etl\s+0 2 \* \* \*\s+\d{4}-\d\d-\d\dT02:00:00Z\s+succeeded\s+\S+\s+nightly$/);
    expect(slow).toMatch(/^slow\s+-\s+-\s+-\s+-\s+-$/);
    expect((await dagu(['ls', 'slo'], h.env)).stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it("ls reads a schedule without CRON_TZ= in the host's zone, as Dagu does", async () => {
    // 02:00 in Tokyo (UTC+9, no summer time) is 17:00 UTC; the next run is printed in UTC, and the schedule
    // with the zone it is read in.
    const tokyo = await dagu(['ls', 'etl'], { ...h.env, TZ: 'Asia/Tokyo' });
    expect(tokyo.stdout).toMatch(/\netl\s+CRON_TZ=Asia\/Tokyo 0 2 \* \* \*\s+\d{4}-\d\d-\d\dT17:00:00Z\s/);
    // The tz setting wins over the host's zone.
    const kolkata = await dagu(['ls', 'etl'], { ...h.env, TZ: 'Asia/Tokyo', DAGU_TZ: 'Asia/Kolkata' });
    expect(kolkata.stdout).toMatch(
      /\netl\s+CRON_TZ=Asia\/Kolkata 0 2 \* \* \*\s+\d{4}-\d\d-\d\dT20:30:00Z\s/,
    );
  });

  it('ps lists the running runs only', async () => {
    expect((await dagu(['ps'], h.env)).stdout).toBe('No running processes\n');
    const run = await runningSlow();
    const r = await dagu(['ps'], h.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nslow\\s+${run.run_id}\\s+1\\s+\\S+\\s+\\S+ pid \\d+\\n$`));
    expect((await dagu(['ps', '-d', 'etl'], h.env)).stdout).toBe('No running processes\n');
  });

  it('cleanup previews, asks, and removes ended runs but never a running one', async () => {
    const ended = await startQuiet('etl');
    const preview = await dagu(['cleanup', '--dry-run', 'etl'], h.env);
    expect([preview.code, preview.stdout]).toEqual([0, `Would remove 1 run(s) of etl:\n  ${ended.run_id}\n`]);
    const unanswered = await dagu(['cleanup', 'etl'], h.env); // stdin is closed: no answer, nothing removed
    expect(unanswered.code).toBe(0);
    expect(unanswered.stdout).toMatch(/Continue\? \[y\/N\]: \nCancelled; nothing removed\.\n$/);
    expect((await dagu(['cleanup', '-y', '--retention-days', '30', 'etl'], h.env)).stdout).toBe(
      'No runs of etl older than 30 days to remove\n',
    );
    const removed = await dagu(['cleanup', '-y', 'etl'], h.env);
    expect([removed.code, removed.stdout]).toEqual([0, 'Removed 1 run(s) of etl\n']);
    expect((await dagu(['status', ended.run_id], h.env)).code).toBe(1);

    const running = await runningSlow();
    const kept = await dagu(['cleanup', '-y', 'slow'], h.env);
    expect([kept.code, kept.stdout]).toEqual([
      0,
      'No runs of slow to remove (1 queued or running run kept)\n',
    ]);
    expect((await statusOf(running.run_id)).status).toBe('running');
    const bad = await dagu(['cleanup', '--retention-days', '-1', 'etl'], h.env);
    expect(bad.code).toBe(2);
  });

  it('schema describes DAG and config keys from the reference; an unknown key exits 1', async () => {
    const top = await dagu(['schema', 'dag'], h.env);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^ {2}steps {2}\(supported\)$/m);
    const key = await dagu(['schema', 'dag', 'steps.retry_policy'], h.env);
    expect(key.stdout).toMatch(/^steps\[\]\.retry_policy\n {2}Status: supported\n/);
    expect(key.stdout).toContain('  steps[].retry_policy.limit');
    expect((await dagu(['schema', 'config', 'scheduler.port'], h.env)).stdout).toMatch(/^scheduler\.port\n/);
    const unknown = await dagu(['schema', 'dag', 'steps.nope'], h.env);
    expect(unknown.code).toBe(1);
    expect((await dagu(['schema', 'yaml'], h.env)).code).toBe(2);
  });

  it('help lists every command and shows both forms of a run argument', async () => {
    const help = await dagu(['--help'], h.env);
    for (const cmd of [
      'dry',
      'history',
      'ls',
      'ps',
      'cleanup',
      'schema',
      'status',
      'stop',
      'restart',
      'retry',
    ])
      expect(help.stdout).toMatch(new RegExp(`^  ${cmd} `, 'm'));
    const status = await dagu(['status', '--help'], h.env);
    expect(status.stdout).toContain('dagu status [options] <run-id|dag>');
    expect(status.stdout).toContain('dagu status --run-id 20261130-011530-1a2b3c4d etl');
  });
});
