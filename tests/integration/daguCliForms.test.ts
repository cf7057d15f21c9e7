// Dagu's command-line forms through the real `bin/dagu`: `start --params` before the DAG, a DAG with
// `--run-id` for status/stop/restart/retry, and the everyday commands dry, history, ls, ps, cleanup and schema,
// with their output and exit codes. Our run-ID forms keep working beside them.

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
    if (['-p', '--params', '-r', '--run-id'].includes(args[i])) i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  throw new Error(`no DAG in ${args.join(' ')}`);
}

/** Starts the first run of `slow` in the background and resolves once it is running. */
async function runningSlow(): Promise<Status> {
  const s = startService(['start', 'slow'], h.env);
  services.push(s);
  return eventually(async () => {
    const r = await dagu(['status', '--json', 'slow'], h.env);
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
