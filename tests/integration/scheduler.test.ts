// The single-instance scheduler through the real binary: slots, queues, catch-up and dead runs.

import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config/loadConfig';
import { systemClock } from '../../server/core/clock';
import { parseDag } from '../../server/core/dag/parseDag';
import { silentLogger } from '../../server/core/ports';
import { newRunStatus } from '../../server/core/runStatus';
import { fileControlPlane } from '../../server/store/fileControlPlane';
import { alive, DAGU, dagu, eventually, sparePids, startService, homeWithServices, runsOf } from './harness';

const ctx = homeWithServices();

function scheduler(env = ctx.h.env) {
  const s = startService(['scheduler'], env);
  ctx.services.push(s);
  return s;
}

interface RunSummary {
  run_id: string;
  status: string;
  trigger_type: string;
  schedule_time: string | null;
  started_at: string | null;
  finished_at: string | null;
}

async function runs(dag: string): Promise<RunSummary[]> {
  return runsOf<RunSummary>(ctx.h.home, dag, 500);
}

describe('dagu scheduler', () => {
  it('runs each slot of a seconds schedule once, with the slot run ID and schedule time', async () => {
    ctx.h.writeDag(
      'tick',
      'schedule: "*/2 * * * * *"\nsteps:\n  - name: s\n    command: echo "$DAG_RUN_SCHEDULE_TIME"\n',
    );
    const s = scheduler();
    const done = await eventually(async () => {
      const r = (await runs('tick')).filter((x) => x.status === 'succeeded');
      return r.length >= 2 ? r : null;
    }, 20_000);
    for (const r of done) {
      expect(r.trigger_type).toBe('scheduler');
      expect(r.run_id).toMatch(/^sched-[0-9a-f]{12}-\d{8}T\d{4,6}Z$/);
      expect(new Date(r.schedule_time!).getUTCSeconds() % 2).toBe(0);
    }
    expect(new Set(done.map((r) => r.schedule_time)).size).toBe(done.length);
    expect(await s.stop()).toBe(0);
  });

  it('consumes a queue in order within its concurrency and leaves it empty', async () => {
    ctx.h.writeDag('q', 'steps:\n  - name: s\n    command: sleep 0.3\n');
    for (let i = 0; i < 3; i++) expect((await dagu(['enqueue', 'q'], ctx.h.env)).code).toBe(0);
    scheduler();
    const done = await eventually(async () => {
      const r = (await runs('q')).filter((x) => x.status === 'succeeded');
      return r.length === 3 ? r : null;
    }, 20_000);
    const byStart = [...done].sort((a, b) => a.started_at!.localeCompare(b.started_at!));
    for (let i = 1; i < byStart.length; i++) {
      // max_active_runs defaults to 1: the next run starts only after the previous one finished.
      expect(byStart[i].started_at! >= byStart[i - 1].finished_at!).toBe(true);
    }
    expect(readdirSafe(path.join(ctx.h.home, 'data', 'queue', 'q'))).toEqual([]);
  });

  it('watches its data directory on this host: the next run of a full queue starts as the running one ends', async () => {
    // Not a whole number of seconds: resting, the consumer passes once a second, and a run of exactly one
    // second would end right before such a pass.
    ctx.h.writeDag('rest', 'steps:\n  - name: s\n    command: sleep 1.5\n');
    const s = scheduler({ ...ctx.h.env, DAGU_LOG_LEVEL: 'debug' });
    // The probe it made in data/active was reported: from now on a full queue rests between passes.
    await s.waitFor(/Queue consumer: changes on this host wake it/);
    for (let i = 0; i < 2; i++) expect((await dagu(['enqueue', 'rest'], ctx.h.env)).code).toBe(0);
    const done = await eventually(async () => {
      const r = (await runs('rest')).filter((x) => x.status === 'succeeded');
      return r.length === 2 ? r : null;
    }, 20_000);
    const [first, second] = [...done].sort((a, b) => a.started_at!.localeCompare(b.started_at!));
    // The second waited in the full queue, resting: the end of the first (its marker gone) woke the consumer.
    // The gap itself is no proof: not woken, the rest's next pass comes within a second, and a loaded host
    // takes most of that to start a run process.
    expect(second.started_at! >= first.finished_at!).toBe(true);
    const wakes = s
      .output()
      .split('\n')
      .filter((l) => l.includes('Queue consumer: a change on this host wakes it'));
    expect(wakes.some((l) => l.includes(first.run_id))).toBe(true);
    expect(s.output()).not.toMatch(/does not report changes/);
    expect(await s.stop()).toBe(0);
  });

  it('drains a backlog larger than its limit of open files', async () => {
    // Reading every queued run's files at once once ran a scheduler out of file descriptors (EMFILE) at each
    // queue pass, under the usual limit of 1,024, with a backlog of a thousand runs: nothing ever started.
    const queued = 400;
    writeFileSync(
      path.join(ctx.h.home, 'config.yaml'),
      'queues:\n  config:\n    - name: backlog\n      max_concurrency: 4\n',
    );
    const text = 'queue: backlog\nsteps:\n  - name: s\n    command: "true"\n';
    ctx.h.writeDag('b', text);
    const parsed = parseDag(text, { file: path.join(ctx.h.home, 'dags', 'b.yaml'), defaultName: 'b' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const cp = fileControlPlane(loadConfig({ env: ctx.h.env }), silentLogger, systemClock);
    const ids = Array.from({ length: queued }, (_, i) => `backlog-${String(i).padStart(4, '0')}`);
    for (const runId of ids) {
      const status = newRunStatus({
        dag: parsed.dag,
        runId,
        status: 'queued',
        triggerType: 'manual',
        scheduleTime: null,
        params: [],
        nowIso: new Date().toISOString(),
      });
      await cp.runs.createRun(status);
      await cp.queue.enqueue({
        queue: 'backlog',
        run_id: runId,
        dag_name: 'b',
        enqueued_at: status.created_at,
      });
    }
    const s = startService(
      ['scheduler'],
      { ...ctx.h.env, DAGU_QUEUES_ENABLED: 'true' },
      { maxOpenFiles: 256 },
    );
    ctx.services.push(s);
    // The backlog drains, four at a time, and every run succeeds.
    await eventually(async () => ((await cp.queue.list('backlog')).length === 0 ? true : null), 100_000);
    const ended = await eventually(async () => {
      const states: string[] = [];
      for (const id of ids) {
        const read = await cp.runs.readStatus(id);
        states.push(read.kind === 'ok' ? read.status.status : read.kind);
      }
      return states.every((st) => st !== 'queued' && st !== 'running') ? states : null;
    }, 30_000);
    expect(new Set(ended)).toEqual(new Set(['succeeded']));
    expect(s.output()).not.toMatch(/EMFILE|too many open files/);
  }, 150_000);

  it("filters the host environment of a run's steps as Dagu does; env_passthrough lets a variable through", async () => {
    // The scheduler sets NODE_EXTRA_CA_CERTS aside while a run process starts (a run process makes no TLS
    // call); it must neither leak under its stashed name nor bypass the filter on the way back.
    const ca = path.join(ctx.h.home, 'extra-ca.pem');
    writeFileSync(ca, '');
    ctx.h.writeDag(
      'env',
      'steps:\n  - name: s\n    run: echo "$NODE_EXTRA_CA_CERTS|${DAGU_STEP_NODE_EXTRA_CA_CERTS:-}|${SECRET_TOKEN:-}"\n',
    );
    const stepOutput = async (runId: string, env: NodeJS.ProcessEnv) => {
      expect((await dagu(['enqueue', '--run-id', runId, 'env'], ctx.h.env)).code).toBe(0);
      const s = scheduler({ ...env, NODE_EXTRA_CA_CERTS: ca, SECRET_TOKEN: 'hunter2' });
      const run = await eventually(
        async () => (await runs('env')).find((r) => r.run_id === runId && r.status === 'succeeded'),
        20_000,
      );
      await s.stop('SIGTERM');
      const st = JSON.parse((await dagu(['status', '--json', run.run_id], ctx.h.env)).stdout) as {
        steps: Array<{ stdout: string }>;
      };
      return readFileSync(path.join(ctx.h.home, 'logs', st.steps[0].stdout), 'utf8');
    };
    expect(await stepOutput('env1', ctx.h.env)).toBe('||\n');
    expect(await stepOutput('env2', { ...ctx.h.env, DAGU_ENV_PASSTHROUGH: 'NODE_EXTRA_CA_CERTS' })).toBe(
      `${ca}||\n`,
    );
  });

  it('refuses to enqueue when queues are disabled', async () => {
    ctx.h.writeDag('q', 'steps:\n  - name: s\n    command: "true"\n');
    const r = await dagu(['enqueue', 'q'], { ...ctx.h.env, DAGU_QUEUES_ENABLED: 'false' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/queues are disabled/);
  });

  it('keeps a queued run going after the scheduler that started it stops', async () => {
    ctx.h.writeDag('long', 'steps:\n  - name: s\n    command: sleep 2\n');
    await dagu(['enqueue', '--run-id', 'survivor', 'long'], ctx.h.env);
    const s = scheduler();
    await eventually(async () => (await runs('long')).find((r) => r.status === 'running'));
    expect(await s.stop()).toBe(0);
    const final = await eventually(
      async () => (await runs('long')).find((r) => r.status === 'succeeded'),
      20_000,
    );
    expect(final.run_id).toBe('survivor');
  });

  it('keeps one pre-started run process while active, which leaves when the scheduler is killed', async () => {
    const s = scheduler();
    const spare = await eventually(() => sparePids(s.child.pid!).at(0), 20_000);
    s.child.kill('SIGKILL');
    await eventually(() => !alive(spare), 20_000);
  });

  it('marks a run failed when its process is killed', async () => {
    ctx.h.writeDag('victim', 'steps:\n  - name: s\n    command: sleep 30\n');
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [DAGU, 'start', '--run-id', 'victim1', 'victim'], {
      env: ctx.h.env,
      stdio: 'ignore',
      detached: true,
    });
    await eventually(async () => (await runs('victim')).find((r) => r.status === 'running'));
    process.kill(-child.pid!, 'SIGKILL');
    scheduler();
    const failed = await eventually(
      async () => (await runs('victim')).find((r) => r.status === 'failed'),
      20_000,
    );
    const st = await dagu(['status', '--json', 'victim1'], ctx.h.env);
    expect(JSON.parse(st.stdout).error).toMatch(/run process \d+ on .* (is gone|stopped heartbeating)/);
    expect(failed.run_id).toBe('victim1');
  });

  it('removes a run directory whose creator died before listing the run, once it is long abandoned', async () => {
    // What `dagu start` killed between claiming its run ID and listing the run leaves behind.
    const runsDir = path.join(ctx.h.home, 'data', 'runs');
    mkdirSync(path.join(runsDir, '20261130-011000-0badc0de'), { recursive: true });
    mkdirSync(path.join(runsDir, '20261130-011001-5eedf00d'), { recursive: true });
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(path.join(runsDir, '20261130-011000-0badc0de'), hourAgo, hourAgo);
    const s = scheduler();
    await s.waitFor(/^(?=.*Removed a run directory its creator left empty)(?=.*20261130-011000-0badc0de)/m);
    expect(readdirSync(runsDir)).not.toContain('20261130-011000-0badc0de');
    // A young one may still be being created: it stays.
    expect(readdirSync(runsDir)).toContain('20261130-011001-5eedf00d');
    expect(await s.stop()).toBe(0);
  });

  it('queues missed slots inside catchup_window as catch-up runs at start', async () => {
    ctx.h.writeDag(
      'cu',
      'schedule: "* * * * *"\ncatchup_window: 5m\nsteps:\n  - name: s\n    command: "true"\n',
    );
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    mkdirSync(path.join(ctx.h.home, 'data', 'scheduler'), { recursive: true });
    writeFileSync(
      path.join(ctx.h.home, 'data', 'scheduler', 'state.json'),
      JSON.stringify({
        version: 1,
        last_tick_ms: minute - 3 * 60_000,
        dags: { cu: { last_slot_ms: minute - 3 * 60_000 } },
      }),
    );
    const s = scheduler();
    // The two missed slots are replayed, and the current minute's slot joins them in the queue (the DAG is
    // busy with the replays when its first tick comes); a minute that turns meanwhile adds its slot too.
    const catchups = await eventually(async () => {
      const r = (await runs('cu')).filter((x) => x.trigger_type === 'catchup' && x.status === 'succeeded');
      return r.length >= 3 ? r : null;
    }, 30_000).catch(async (err: Error) => {
      throw new Error(`${err.message}\nruns: ${JSON.stringify(await runs('cu'))}\nscheduler: ${s.output()}`);
    });
    const slots = catchups.map((r) => Date.parse(r.schedule_time!)).sort();
    expect(slots.slice(0, 3)).toEqual([minute - 2 * 60_000, minute - 60_000, minute]);
    expect(new Set(slots).size).toBe(slots.length);
  });
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => !f.startsWith('.'));
  } catch {
    return [];
  }
}

describe('history retention', () => {
  it("removes each DAG's runs past hist_retention_runs, with their logs, while active", async () => {
    const env = { ...ctx.h.env, DAGU_SCHEDULER_HISTORY_RETENTION_INTERVAL: '1s' };
    ctx.h.writeDag('keep2', 'hist_retention_runs: 2\nsteps:\n  - name: s\n    run: echo kept\n');
    ctx.h.writeDag('other', 'steps:\n  - name: s\n    run: echo other\n');
    for (const id of ['r1', 'r2', 'r3', 'r4']) {
      const r = await dagu(['start', '--run-id', id, 'keep2'], env);
      expect(r.code, r.stderr).toBe(0);
    }
    expect((await dagu(['start', '--run-id', 'o1', 'other'], env)).code).toBe(0);
    const logsOf = (id: string) => path.join(ctx.h.home, 'logs', 'keep2', id);
    expect(readdirSync(logsOf('r1')).length).toBeGreaterThan(0);

    scheduler(env);
    const left = await eventually(async () => {
      const ids = (await runs('keep2')).map((r) => r.run_id).sort();
      return ids.length === 2 ? ids : null;
    }, 30_000);
    expect(left).toEqual(['r3', 'r4']);
    for (const id of ['r1', 'r2']) {
      // Its logs go before its list entries.
      expect(() => readdirSync(logsOf(id))).toThrow();
      const st = await dagu(['status', '--json', id], env);
      expect(st.code).not.toBe(0);
    }
    // The kept runs and other DAGs' runs are untouched (30 days by default).
    expect(readdirSync(logsOf('r4')).length).toBeGreaterThan(0);
    expect((await runs('other')).map((r) => r.run_id)).toEqual(['o1']);
  });
});
