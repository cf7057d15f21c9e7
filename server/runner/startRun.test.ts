import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../config/types';
import { systemClock, systemTimers } from '../core/clock';
import { silentLogger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec } from '../core/types';
import { RunNotFoundError } from '../store/errors';
import { FileRunStore } from '../store/fileRunStore';
import { MemoryRunStore } from '../store/memoryRunStore';
import type { RunStore } from '../store/types';
import { RunConflictError } from './errors';
import { retryRun } from './retryRun';
import { loadConfig } from '../config/loadConfig';
import { ParamsRejectedError, startRun, type StartRunOptions } from './startRun';
import { dagOf, minimalEnv, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'dags'));
});
afterEach(() => cleanup());

function configFor(home: string): Config {
  return loadConfig({
    home,
    env: {
      NODE_ENV: 'test',
      DAGU_LOG_FORMAT: 'json',
      DAGU_RUN_HEARTBEAT_INTERVAL: '50ms',
      DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '1s',
    },
  });
}

/** The in-memory store with its logs in the test's temp directory. */
class TempLogRunStore extends MemoryRunStore {
  constructor(private readonly logRoot: string) {
    super();
  }
  logDir(dagName: string, runId: string, attempt: number): string {
    return join(this.logRoot, super.logDir(dagName, runId, attempt).replace(/^\/logs\//, ''));
  }
}

function options(runStore: RunStore, dag: DagSpec, extra: Partial<StartRunOptions> = {}): StartRunOptions {
  return {
    dag,
    runStore,
    config: configFor(dir),
    clock: systemClock,
    timers: systemTimers,
    logger: silentLogger,
    triggerType: 'manual',
    scheduleTime: null,
    params: [],
    newRunId: () => 'fresh-run',
    signal: new AbortController().signal,
    env: minimalEnv(),
    ...extra,
  };
}

describe('startRun', () => {
  it('creates a run with the DAG params overridden, runs it marked active and stores the final status', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    let activeWhileRunning: string[] = [];
    // Longer than the heartbeat interval and than the wait before a step's change is written.
    const dag = dagOf([stepOf('show', 'sleep 0.3; echo "$1 $MODE"')], {
      params: [
        { name: null, value: 'first' },
        { name: 'MODE', value: 'fast' },
      ],
    });
    const original = store.writeStatus.bind(store);
    store.writeStatus = async (s) => {
      if (s.steps[0].status === 'running')
        activeWhileRunning = (await store.listActive()).map((a) => a.run_id);
      return original(s);
    };
    const final = await startRun(options(store, dag, { params: [{ name: 'MODE', value: 'slow' }] }));

    expect(final).toMatchObject({
      run_id: 'fresh-run',
      attempt: 1,
      status: 'succeeded',
      trigger_type: 'manual',
    });
    expect(final.params).toEqual(['1=first', 'MODE=slow']);
    expect(activeWhileRunning).toEqual(['fresh-run']);
    expect(await store.listActive()).toEqual([]);
    const stored = await store.readStatus('fresh-run');
    expect(stored.kind === 'ok' && stored.status).toEqual(final);
    expect(readFileSync(join(dir, 'logs', 'test-dag', 'fresh-run', '1', 'show.out'), 'utf8')).toBe(
      'first slow\n',
    );
    expect(await store.readHeartbeat('fresh-run', 1)).not.toBeNull();
  });

  it('takes over a queued run: same attempt, its own params and trigger, conditions cleared', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('show', 'echo "$1"')]);
    const queued = newRunStatus({
      dag,
      runId: 'queued-run',
      status: 'queued',
      triggerType: 'catchup',
      scheduleTime: '2026-11-30T01:15:00Z',
      params: ['from-queue'],
      nowIso: new Date().toISOString(),
    });
    queued.conditions = [
      {
        type: 'Runnable',
        status: 'False',
        reason: 'QueueFull',
        message: 'waiting',
        checked_at: queued.created_at,
      },
    ];
    await store.createRun(queued);
    const final = await startRun(
      options(store, dag, { runId: 'queued-run', params: [{ name: null, value: 'ignored' }] }),
    );

    expect(final).toMatchObject({
      attempt: 1,
      status: 'succeeded',
      trigger_type: 'catchup',
      schedule_time: '2026-11-30T01:15:00Z',
      params: ['1=from-queue'],
      conditions: [],
      queued_at: queued.queued_at,
    });
    expect(readFileSync(join(dir, 'logs', 'test-dag', 'queued-run', '1', 'show.out'), 'utf8')).toBe(
      'from-queue\n',
    );
  });

  it('refuses params the DAG does not accept before anything is recorded', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('show', 'echo "$FOO"')], { params: [{ name: 'FOO', value: 'bar' }] });
    const start = startRun(options(store, dag, { params: [{ name: 'BOGUS', value: '1' }] }));
    await expect(start).rejects.toBeInstanceOf(ParamsRejectedError);
    await expect(start).rejects.toThrow('unknown parameter(s): "BOGUS"; accepted parameters are: FOO');
    expect((await store.readStatus('fresh-run')).kind).toBe('missing');
  });

  it("gives a queued run recorded without params the DAG's defaults and pending evals", async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const evaluated = {
      name: 'DAY',
      value: '',
      rich: {
        has_default: false,
        eval: '`printf evaluated`',
        description: '',
        type: null,
        required: false,
        enum: null,
        minimum: null,
        maximum: null,
        min_length: null,
        max_length: null,
        pattern: null,
      },
    };
    const dag = dagOf([stepOf('show', 'echo "$FOO $DAY"')], {
      params: [{ name: 'FOO', value: 'bar' }, evaluated],
    });
    const queued = newRunStatus({
      dag,
      runId: 'old-record',
      status: 'queued',
      triggerType: 'scheduler',
      scheduleTime: null,
      params: [],
      nowIso: new Date().toISOString(),
    });
    await store.createRun(queued);
    const final = await startRun(options(store, dag, { runId: 'old-record' }));
    expect(final).toMatchObject({ status: 'succeeded', params: ['FOO=bar', 'DAY=evaluated'] });
    expect(readFileSync(join(dir, 'logs', 'test-dag', 'old-record', '1', 'show.out'), 'utf8')).toBe(
      'bar evaluated\n',
    );
  });

  it("fails a run before any step when a param's eval fails and it has no default", async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const marker = join(dir, 'ran');
    const dag = dagOf([stepOf('show', `touch "${marker}"`)], {
      params: [
        {
          name: 'DAY',
          value: '',
          rich: {
            has_default: false,
            eval: '`exit 4`',
            description: '',
            type: null,
            required: false,
            enum: null,
            minimum: null,
            maximum: null,
            min_length: null,
            max_length: null,
            pattern: null,
          },
        },
      ],
    });
    const final = await startRun(options(store, dag));
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/params: parameter "DAY" eval failed/);
    expect(final.steps[0].status).toBe('not_started');
    expect(existsSync(marker)).toBe(false);
  });

  it("starts a restart with an earlier run's list as it is", async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    // The positional default is the DAG's second param, so it is $2.
    const dag = dagOf([stepOf('show', 'echo "$2 $A"')], {
      params: [
        { name: 'A', value: '1' },
        { name: null, value: 'p' },
      ],
    });
    const final = await startRun(options(store, dag, { recordParams: ['A=x', 'q'] }));
    // Positional params are stored named by their place, as Dagu stores them.
    expect(final.params).toEqual(['A=x', '2=q']);
    expect(readFileSync(join(dir, 'logs', 'test-dag', 'fresh-run', '1', 'show.out'), 'utf8')).toBe('q x\n');
  });

  it('runs a queued run once when two processes are told to start it at the same time', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('count', 'echo x >> "$DAGU_TEST_COUNT"')]);
    const countFile = join(dir, 'count');
    await store.createRun(
      newRunStatus({
        dag,
        runId: 'twice',
        status: 'queued',
        triggerType: 'queue',
        scheduleTime: null,
        params: [],
        nowIso: new Date().toISOString(),
      }),
    );
    const env = { ...minimalEnv(), DAGU_TEST_COUNT: countFile };
    const results = await Promise.allSettled([
      startRun({ ...options(store, dag, { runId: 'twice' }), env }),
      startRun({ ...options(store, dag, { runId: 'twice' }), env }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(rejected.reason)).toMatch(/already being started by another process/);
    expect(readFileSync(countFile, 'utf8')).toBe('x\n');
  });

  it('runs nothing of a queued run whose claim is given back before its start is recorded, and says so', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('count', 'echo x >> "$DAGU_TEST_COUNT"')]);
    const countFile = join(dir, 'count');
    await store.createRun(
      newRunStatus({
        dag,
        runId: 'given-back',
        status: 'queued',
        triggerType: 'scheduler',
        scheduleTime: null,
        params: [],
        nowIso: new Date().toISOString(),
      }),
    );
    // The active scheduler gives the claim back between this process's claim and its start.
    const claim = store.claimAttempt.bind(store);
    store.claimAttempt = async (runId, attempt, owner) => {
      const won = await claim(runId, attempt, owner);
      await store.releaseClaim(runId, attempt, owner);
      return won;
    };
    const env = { ...minimalEnv(), DAGU_TEST_COUNT: countFile };
    await expect(startRun({ ...options(store, dag, { runId: 'given-back' }), env })).rejects.toThrow(
      /given back to its queue by the active scheduler/,
    );
    expect(existsSync(countFile)).toBe(false);
    const r = await store.readStatus('given-back');
    expect(r.kind === 'ok' && r.status.status).toBe('queued');
    // Free again: the next process told to start it claims it and runs it, once.
    store.claimAttempt = claim;
    const final = await startRun({ ...options(store, dag, { runId: 'given-back' }), env });
    expect(final.status).toBe('succeeded');
    expect(readFileSync(countFile, 'utf8')).toBe('x\n');
  });

  it('records the start under its claim before a step runs, with this process named', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('count', 'echo x >> "$DAGU_TEST_COUNT"')]);
    const countFile = join(dir, 'count');
    await store.createRun(
      newRunStatus({
        dag,
        runId: 'begun',
        status: 'queued',
        triggerType: 'scheduler',
        scheduleTime: null,
        params: [],
        nowIso: new Date().toISOString(),
      }),
    );
    const begun: Array<{ status: string; pid: number | null; stepRan: boolean }> = [];
    const begin = store.beginClaimedAttempt.bind(store);
    store.beginClaimedAttempt = async (status, owner) => {
      begun.push({ status: status.status, pid: status.pid, stepRan: existsSync(countFile) });
      expect(owner).toBe(await store.readClaim('begun', 1));
      return begin(status, owner);
    };
    const env = { ...minimalEnv(), DAGU_TEST_COUNT: countFile };
    expect((await startRun({ ...options(store, dag, { runId: 'begun' }), env })).status).toBe('succeeded');
    expect(begun).toEqual([{ status: 'running', pid: process.pid, stepRan: false }]);
  });

  it('refuses a run ID whose run is not queued, naming its state, and writes nothing', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('a', 'true')]);
    const first = await startRun(options(store, dag, { runId: 'done-run' }));

    const again = startRun(options(store, dag, { runId: 'done-run' }));
    await expect(again).rejects.toThrow(RunConflictError);
    await expect(again).rejects.toThrow('run done-run is already succeeded');
    const stored = await store.readStatus('done-run');
    expect(stored.kind === 'ok' && stored.status).toEqual(first);
  });

  it('reads and claims a queued run in one step where the store can, and refuses as with two', async () => {
    /** A store that reads and claims in one step (as PostgreSQL does), counting how it is asked. */
    class OneStepStore extends TempLogRunStore {
      asked: string[] = [];
      async claimQueued(runId: string, owner: string) {
        this.asked.push(`claimQueued ${runId}`);
        const r = await super.readStatus(runId);
        if (r.kind !== 'ok') return { kind: 'missing' } as const;
        const claimed =
          r.status.status === 'queued' && (await super.claimAttempt(runId, r.status.attempt, owner));
        return { kind: 'ok', status: r.status, claimed } as const;
      }
      override async readStatus(runId: string) {
        this.asked.push(`readStatus ${runId}`);
        return super.readStatus(runId);
      }
      override async claimAttempt(runId: string, attempt: number, owner: string) {
        this.asked.push(`claimAttempt ${runId}`);
        return super.claimAttempt(runId, attempt, owner);
      }
    }
    const store = new OneStepStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('a', 'true')]);
    const queued = (runId: string) =>
      newRunStatus({
        dag,
        runId,
        status: 'queued',
        triggerType: 'queue',
        scheduleTime: null,
        params: [],
        nowIso: new Date().toISOString(),
      });
    await store.createRun(queued('q1'));
    const final = await startRun(options(store, dag, { runId: 'q1' }));
    expect(final.status).toBe('succeeded');
    expect(store.asked.filter((a) => a.endsWith(' q1')).slice(0, 1)).toEqual(['claimQueued q1']);
    expect(store.asked).not.toContain('claimAttempt q1');

    // Not queued any more, or claimed by another: refused, nothing run.
    await expect(startRun(options(store, dag, { runId: 'q1' }))).rejects.toThrow(
      'run q1 is already succeeded',
    );
    await store.createRun(queued('q2'));
    expect(await store.claimAttempt('q2', 1, 'another process')).toBe(true);
    await expect(startRun(options(store, dag, { runId: 'q2' }))).rejects.toThrow(
      /already being started by another process/,
    );
    const q2 = await store.readStatus('q2');
    expect(q2.kind === 'ok' && q2.status.status).toBe('queued');
    // No such run: a new run of that ID.
    expect((await startRun(options(store, dag, { runId: 'q3' }))).status).toBe('succeeded');
  });

  it('records log paths relative to the logs root of the file store', async () => {
    const config = configFor(dir);
    const store = new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir });
    const final = await startRun(options(store, dagOf([stepOf('a', 'echo hi')])));

    expect(final.log_dir).toBe('test-dag/fresh-run/1');
    expect(final.steps[0].stdout).toBe('test-dag/fresh-run/1/a.out');
    expect(existsSync(join(config.paths.log_dir, final.steps[0].stdout!))).toBe(true);
  });
});

describe('retryRun', () => {
  it('runs a new attempt of a finished run with trigger retry and the same params', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const marker = join(dir, 'marker');
    const dag = dagOf([stepOf('flaky', `[ -f "${marker}" ] || { touch "${marker}"; exit 1; }; echo "$1"`)]);
    const first = await startRun(options(store, dag, { params: [{ name: null, value: 'p1' }] }));
    expect(first.status).toBe('failed');

    const second = await retryRun({ ...options(store, dag), runId: 'fresh-run' });
    expect(second).toMatchObject({
      attempt: 2,
      status: 'succeeded',
      trigger_type: 'retry',
      params: ['1=p1'],
    });
    expect(second.log_dir).toBe('test-dag/fresh-run/2');
    const latest = await store.readStatus('fresh-run');
    expect(latest.kind === 'ok' && latest.status.attempt).toBe(2);
    // A retry by hand counts no retry of the DAG's retry_policy; the scheduler's does, and later ones keep it.
    expect(second.auto_retry_count).toBeUndefined();
    const third = await retryRun({ ...options(store, dag), runId: 'fresh-run', autoRetry: true });
    expect(third).toMatchObject({ attempt: 3, auto_retry_count: 1 });
    const fourth = await retryRun({ ...options(store, dag), runId: 'fresh-run' });
    expect(fourth).toMatchObject({ attempt: 4, auto_retry_count: 1 });
  });

  it("keeps the run's labels for every attempt, whatever the DAG's labels are now", async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = { ...dagOf([stepOf('a', 'exit 1')]), labels: ['team=data'], tags: ['team=data'] };
    const first = await startRun(options(store, { ...dag, labels: ['team=data', 'env=prod'] }));
    expect(first.labels).toEqual(['team=data', 'env=prod']);
    const second = await retryRun({ ...options(store, dag), runId: 'fresh-run' });
    expect(second).toMatchObject({ attempt: 2, labels: ['team=data', 'env=prod'] });
    // A record without labels (none then, or an older version's) takes the DAG's.
    await store.writeStatus({ ...second, labels: undefined });
    const third = await retryRun({ ...options(store, dag), runId: 'fresh-run' });
    expect(third.labels).toEqual(['team=data']);
  });

  it('refuses to retry a run that does not exist or is still queued', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('a', 'true')]);
    await expect(retryRun({ ...options(store, dag), runId: 'nope' })).rejects.toThrow(RunNotFoundError);

    await store.createRun(
      newRunStatus({
        dag,
        runId: 'waiting',
        status: 'queued',
        triggerType: 'manual',
        scheduleTime: null,
        params: [],
        nowIso: new Date().toISOString(),
      }),
    );
    await expect(retryRun({ ...options(store, dag), runId: 'waiting' })).rejects.toThrow(
      'run waiting is already queued',
    );
  });

  it("writes step logs under the DAG's log_dir (relative to the DAG file) and records their absolute paths", async () => {
    const store = new FileRunStore({ dataDir: join(dir, 'data'), logDir: join(dir, 'logs') });
    const dag = dagOf([stepOf('hello', 'echo hi')], {
      name: 'own-logs',
      file: join(dir, 'dags', 'own-logs.yaml'),
      log_dir: '../custom-logs',
    });
    const final = await startRun(options(store, dag, { runId: 'r-logs' }));

    const where = join(dir, 'custom-logs', 'own-logs', 'r-logs', '1');
    expect(final.log_dir).toBe(where);
    expect(final.steps[0].stdout).toBe(join(where, 'hello.out'));
    expect(readFileSync(join(where, 'hello.out'), 'utf8')).toBe('hi\n');
  });

  it('runs steps of a DAG without working_dir in the per-run work directory under the data directory', async () => {
    const store = new FileRunStore({ dataDir: join(dir, 'data'), logDir: join(dir, 'logs') });
    const dag = dagOf([stepOf('where', 'pwd')], { name: 'wd' });
    const final = await startRun(options(store, dag, { runId: 'r-wd' }));

    const workDir = join(configFor(dir).paths.data_dir, 'dag-run-work', 'wd', 'r-wd', 'root');
    expect(readFileSync(join(dir, 'logs', final.steps[0].stdout!), 'utf8')).toBe(`${workDir}\n`);
  });
});
