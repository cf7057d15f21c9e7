import { recordArtifactsDir } from './fileArtifactStore';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { blockFileCallsWhile } from './fileCalls';
import { FileRunStore } from './fileRunStore';
import type { CorruptFileReport } from './fsutil';
import { describeRunStoreContract } from './runStore.contract';
import { testRunStatus } from '../testing/testRunStatus';

async function tempHome(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-runstore-'));
}

describeRunStoreContract('FileRunStore', async () => {
  const home = await tempHome();
  return {
    store: new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') }),
    cleanup: () => fs.rm(home, { recursive: true, force: true }),
  };
});

// What `dagu start` uses between its steps (see fileCalls.ts): the same store, every call synchronous.
describeRunStoreContract('FileRunStore, blocking file calls', async () => {
  const home = await tempHome();
  blockFileCallsWhile(() => true);
  return {
    store: new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') }),
    cleanup: async () => {
      blockFileCallsWhile(() => false);
      await fs.rm(home, { recursive: true, force: true });
    },
  };
});

describe('FileRunStore on disk', () => {
  let home: string;
  let dataDir: string;
  let reports: CorruptFileReport[];
  let store: FileRunStore;
  const open = () =>
    new FileRunStore({ dataDir, logDir: path.join(home, 'logs'), onCorrupt: (r) => reports.push(r) });

  beforeEach(async () => {
    home = await tempHome();
    dataDir = path.join(home, 'data');
    reports = [];
    store = open();
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  const statusFile = (runId: string, attempt = 1) =>
    path.join(dataDir, 'runs', runId, 'attempts', String(attempt), 'status.json');

  it('completes a run whose creator died after making its directory, once, and lists it', async () => {
    await fs.mkdir(path.join(dataDir, 'runs', 'half-made'), { recursive: true });
    expect((await store.readStatus('half-made')).kind).toBe('missing');
    const status = testRunStatus({ run_id: 'half-made', status: 'queued' });
    expect(await store.completeRun(status)).toBe(true);
    expect(await store.completeRun(status)).toBe(false);
    expect(await store.completeRun(testRunStatus({ run_id: 'never-made' }))).toBe(false);
    const read = await store.readStatus('half-made');
    expect(read.kind === 'ok' && read.status.status).toBe('queued');
    expect((await store.listRuns({})).items.map((r) => r.run_id)).toContain('half-made');
  });

  it('lists a slot once when its creator died after its list entries and a successor completed it', async () => {
    // The creator listed the run and died before its status; the successor lists it again at its own time.
    const first = testRunStatus({
      run_id: 'half-made',
      status: 'queued',
      created_at: '2026-03-01T10:00:00Z',
    });
    await store.createRun(first);
    await fs.rm(path.join(dataDir, 'runs', 'half-made', 'attempts'), { recursive: true });
    const repair = { ...first, created_at: '2026-03-01T10:00:07Z' };
    expect(await store.completeRun(repair)).toBe(true);
    expect((await store.listRuns({})).items.map((r) => r.run_id)).toEqual(['half-made']);
    expect((await store.listRuns({ dag: first.dag_name })).items.map((r) => r.run_id)).toEqual(['half-made']);
    expect((await store.listRuns({ status: 'queued' })).items.map((r) => r.run_id)).toEqual(['half-made']);
  });

  it('lists a run again whose creator died after its status and before its list entries', async () => {
    const status = testRunStatus({ run_id: 'unlisted', created_at: '2026-03-01T10:00:00Z' });
    await store.createRun(status);
    await fs.rm(path.join(dataDir, 'index'), { recursive: true });
    expect((await store.listRuns({})).items).toEqual([]);
    await store.ensureIndexed(status);
    await store.ensureIndexed(status);
    expect((await store.listRuns({})).items.map((r) => r.run_id)).toEqual(['unlisted']);
    expect((await store.listRuns({ dag: 'etl' })).items.map((r) => r.run_id)).toEqual(['unlisted']);
  });

  it('shows a corrupt status file as corrupt in readStatus and the list, and still lists the other runs', async () => {
    await store.createRun(testRunStatus({ run_id: 'good-1', created_at: '2026-03-01T10:00:00Z' }));
    await store.createRun(testRunStatus({ run_id: 'broken', created_at: '2026-03-01T10:00:01Z' }));
    await store.createRun(testRunStatus({ run_id: 'good-2', created_at: '2026-03-01T10:00:02Z' }));
    const text = await fs.readFile(statusFile('broken'), 'utf8');
    await fs.writeFile(statusFile('broken'), text.slice(0, text.length / 2)); // truncated

    const read = await store.readStatus('broken');
    expect(read).toMatchObject({ kind: 'corrupt', path: statusFile('broken') });
    expect(read.kind === 'corrupt' && read.error).toMatch(/invalid JSON/);
    const page = await store.listRuns({});
    expect(page.items.map((r) => [r.run_id, r.status])).toEqual([
      ['good-2', 'queued'],
      ['broken', 'corrupt'],
      ['good-1', 'queued'],
    ]);
    expect(page.items[1]).toMatchObject({ dag_name: 'etl', created_at: '2026-03-01T10:00:01.000Z' });
    expect(page.items[1].error).toContain(statusFile('broken'));
    expect((await store.listRuns({ status: 'queued' })).items.map((r) => r.run_id)).toEqual([
      'good-2',
      'good-1',
    ]);
    // Reported, never deleted.
    expect(await fs.readFile(statusFile('broken'), 'utf8')).toBe(text.slice(0, text.length / 2));
  });

  it('treats a status of another shape or another run as corrupt', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    await fs.writeFile(statusFile('r1'), '[]');
    expect(await store.readStatus('r1')).toMatchObject({
      kind: 'corrupt',
      error: 'not a run status: not a JSON object',
    });
    await fs.writeFile(statusFile('r1'), JSON.stringify(testRunStatus({ run_id: 'r2' })));
    expect(await store.readStatus('r1')).toMatchObject({ kind: 'corrupt' });
  });

  it('treats a status of another version as corrupt rather than reading it as its own', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    await fs.writeFile(statusFile('r1'), JSON.stringify({ ...testRunStatus({ run_id: 'r1' }), version: 2 }));
    expect(await store.readStatus('r1')).toMatchObject({
      kind: 'corrupt',
      error: 'not a run status: unsupported version 2 (this dagu reads version 1)',
    });
  });

  it('reads a run directory without a status as missing while young and as corrupt once abandoned', async () => {
    const runDir = path.join(dataDir, 'runs', 'half-made');
    await fs.mkdir(runDir, { recursive: true });
    expect(await store.readStatus('half-made')).toEqual({ kind: 'missing' });
    expect(await store.createRun(testRunStatus({ run_id: 'half-made' }))).toEqual({
      created: false,
      reason: 'exists',
    });
    const hourAgo = new Date(Date.now() - 3600_000);
    await fs.utimes(runDir, hourAgo, hourAgo);
    const read = await store.readStatus('half-made');
    expect(read).toMatchObject({ kind: 'corrupt', path: runDir });
    expect(read.kind === 'corrupt' && read.error).toMatch(/probably crashed/);
  });

  it('removes only the run directories a creator left empty long ago, and only those it is allowed to', async () => {
    const runsDir = path.join(dataDir, 'runs');
    const hourAgo = new Date(Date.now() - 3600_000);
    const emptyDir = async (runId: string, old: boolean) => {
      await fs.mkdir(path.join(runsDir, runId), { recursive: true });
      if (old) await fs.utimes(path.join(runsDir, runId), hourAgo, hourAgo);
    };
    await emptyDir('abandoned', true);
    await emptyDir('being-made', false);
    await emptyDir('kept-by-caller', true);
    await store.createRun(testRunStatus({ run_id: 'finished', status: 'succeeded' }));
    await fs.utimes(path.join(runsDir, 'finished'), hourAgo, hourAgo);
    // Something other than a directory in it (no extra link): the listing says it is not empty.
    await emptyDir('holds-a-file', false);
    await fs.writeFile(path.join(runsDir, 'holds-a-file', 'note'), '');
    await fs.utimes(path.join(runsDir, 'holds-a-file'), hourAgo, hourAgo);

    const removed = await store.removeAbandonedCreations(60_000, (id) => id !== 'kept-by-caller');

    expect(removed).toEqual(['abandoned']);
    expect((await fs.readdir(runsDir)).sort()).toEqual([
      'being-made',
      'finished',
      'holds-a-file',
      'kept-by-caller',
    ]);
    const finished = await store.readStatus('finished');
    expect(finished.kind === 'ok' && finished.status.status).toBe('succeeded');
    expect(await store.removeAbandonedCreations(60_000, () => true)).toEqual(['kept-by-caller']);
  });

  it('reads the previous attempt while a new attempt directory is still being created', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1', status: 'failed' }));
    const attemptDir = path.join(dataDir, 'runs', 'r1', 'attempts', '2');
    await fs.mkdir(attemptDir);
    const read = await store.readStatus('r1');
    expect(read.kind === 'ok' && [read.status.attempt, read.status.status]).toEqual([1, 'failed']);
    const hourAgo = new Date(Date.now() - 3600_000);
    await fs.utimes(attemptDir, hourAgo, hourAgo);
    expect(await store.readStatus('r1')).toMatchObject({ kind: 'corrupt', path: attemptDir });
  });

  it('lets exactly one of two store instances on one data directory create a run ID', async () => {
    const other = open();
    const results = await Promise.all([
      store.createRun(testRunStatus({ run_id: 'sched-abc-20260301T1000Z', dag_name: 'a' })),
      other.createRun(testRunStatus({ run_id: 'sched-abc-20260301T1000Z', dag_name: 'b' })),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect((await store.listRuns({})).items).toHaveLength(1);
  });

  it('refuses invalid names before touching the disk', async () => {
    for (const bad of ['../escape', 'a/b', '..']) {
      await expect(store.createRun(testRunStatus({ run_id: bad }))).rejects.toBeInstanceOf(InvalidNameError);
      await expect(store.createRun(testRunStatus({ run_id: 'ok', dag_name: bad }))).rejects.toBeInstanceOf(
        InvalidNameError,
      );
      await expect(store.markActive({ run_id: bad, dag_name: 'etl', queue: 'etl' })).rejects.toBeInstanceOf(
        InvalidNameError,
      );
    }
    await expect(fs.readdir(home)).resolves.toEqual([]);
  });

  it('replaces status and heartbeat files without leaving temp files behind', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    for (let i = 0; i < 5; i++) {
      await store.writeStatus(testRunStatus({ run_id: 'r1', status: 'running', pid: i }));
      await store.writeHeartbeat('r1', 1, 1000 + i);
    }
    const attemptDir = path.dirname(statusFile('r1'));
    expect((await fs.readdir(attemptDir)).sort()).toEqual(['heartbeat', 'status.json']);
    expect(await fs.readFile(path.join(attemptDir, 'heartbeat'), 'utf8')).toBe('1004');
  });

  it('skips and reports a corrupt heartbeat or active marker once, without deleting it', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    await fs.writeFile(path.join(path.dirname(statusFile('r1')), 'heartbeat'), 'soon');
    expect(await store.readHeartbeat('r1', 1)).toBeNull();

    await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    await store.markActive({ run_id: 'r2', dag_name: 'etl', queue: 'etl' });
    const marker = path.join(dataDir, 'active', 'r2.json');
    await fs.writeFile(marker, '{"run_id":');
    expect(await store.listActive()).toEqual([{ run_id: 'r1', dag_name: 'etl', queue: 'etl' }]);
    expect(await store.listActive()).toHaveLength(1);
    expect(reports.map((r) => r.path)).toEqual([
      path.join(path.dirname(statusFile('r1')), 'heartbeat'),
      marker,
    ]);
    await expect(fs.readFile(marker, 'utf8')).resolves.toBe('{"run_id":');
  });

  it('leaves an active marker that is already as it would be written, and rewrites one that is not', async () => {
    // A queued run's process marks it active again as it takes it over: an identical marker is not
    // replaced (same inode), a torn or different one is.
    await store.createRun(testRunStatus({ run_id: 'r1', status: 'queued' }));
    const marker = path.join(dataDir, 'active', 'r1.json');
    const before = await fs.stat(marker);
    await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    expect((await fs.stat(marker)).ino).toBe(before.ino);

    const written = async () => JSON.parse(await fs.readFile(marker, 'utf8')) as unknown;
    await fs.writeFile(marker, '{"run_id":');
    await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    expect(await written()).toEqual({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'other' });
    expect(await written()).toEqual({ run_id: 'r1', dag_name: 'etl', queue: 'other' });
  });

  it('does not read an ended attempt again for the list, and shows a newer attempt as soon as it exists', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1', status: 'failed', error: 'first' }));
    const entry = async () => (await store.listRuns({})).items[0];
    expect(await entry()).toMatchObject({ attempt: 1, status: 'failed', error: 'first' });
    // An ended attempt is never written again; this rewrite behind the store's back shows it is not read.
    const text = await fs.readFile(statusFile('r1'), 'utf8');
    await fs.writeFile(statusFile('r1'), text.replace('"first"', '"rewritten"'));
    expect(await entry()).toMatchObject({ attempt: 1, status: 'failed', error: 'first' });
    // A fresh store (another process) reads it.
    expect((await open().listRuns({})).items[0]).toMatchObject({ error: 'rewritten' });

    await store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2, status: 'running' }));
    expect(await entry()).toMatchObject({ attempt: 2, status: 'running' });
    await store.writeStatus(testRunStatus({ run_id: 'r1', attempt: 2, status: 'succeeded' }));
    expect(await entry()).toMatchObject({ attempt: 2, status: 'succeeded' });
  });

  it('reads a run that has not ended each time it lists it', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
    expect((await store.listRuns({})).items[0].status).toBe('running');
    await open().writeStatus(testRunStatus({ run_id: 'r1', status: 'succeeded' }));
    expect((await store.listRuns({})).items[0].status).toBe('succeeded');
  });

  it('lists runs created by another store instance (another process) without any cache', async () => {
    await store.createRun(testRunStatus({ run_id: 'r1', created_at: '2026-03-01T10:00:00Z' }));
    expect((await store.listRuns({})).items).toHaveLength(1);
    await open().createRun(testRunStatus({ run_id: 'r2', created_at: '2026-03-01T10:00:00.500Z' }));
    expect((await store.listRuns({})).items.map((r) => r.run_id)).toEqual(['r2', 'r1']);
  });

  it('bounds the runs one status-filtered page reads, returning a short page whose cursor goes on', async () => {
    const bounded = new FileRunStore({ dataDir, logDir: path.join(home, 'logs'), maxScannedPerPage: 3 });
    for (let i = 0; i < 10; i++) {
      const created_at = new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString();
      await store.createRun(
        testRunStatus({ run_id: `r${i}`, created_at, status: i === 0 ? 'failed' : 'queued' }),
      );
    }
    const first = await bounded.listRuns({ status: 'failed', limit: 5 });
    expect(first.items).toEqual([]);
    expect(first.next_cursor).not.toBeNull();
    const found = [];
    for (let cursor = first.next_cursor; cursor !== null;) {
      const page = await bounded.listRuns({ status: 'failed', limit: 5, cursor });
      found.push(...page.items.map((r) => r.run_id));
      cursor = page.next_cursor;
    }
    expect(found).toEqual(['r0']);
  });

  it('puts log directories under the logs directory', () => {
    expect(store.logDir('etl', 'r1', 3)).toBe(path.join(home, 'logs', 'etl', 'r1', '3'));
  });
});

describe('FileRunStore history deletion on disk', () => {
  let home: string;
  let store: FileRunStore;
  beforeEach(async () => {
    home = await tempHome();
    store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  const exists = (p: string) =>
    fs.stat(path.join(home, p)).then(
      () => true,
      () => false,
    );

  it("removes the run's record, list entries, logs, artifacts and work directory", async () => {
    await store.createRun(testRunStatus({ run_id: 'old', status: 'succeeded' }));
    await fs.mkdir(store.logDir('etl', 'old', 1), { recursive: true });
    await fs.writeFile(path.join(store.logDir('etl', 'old', 1), 'step.out'), 'x');
    await fs.mkdir(path.join(home, 'data/dag-run-work/etl/old/root'), { recursive: true });
    // Its artifacts (DAG_RUN_ARTIFACTS_DIR) live in the run's own directory and go with it.
    await fs.mkdir(path.join(home, 'data/runs/old/artifacts/reports'), { recursive: true });
    await fs.writeFile(path.join(home, 'data/runs/old/artifacts/reports/a.md'), 'x');
    expect((await store.readStatus('old')).kind).toBe('ok');
    expect(await store.deleteRun('old')).toEqual({ deleted: true });
    expect(await exists('data/runs/old')).toBe(false);
    expect(await exists('data/deleted/old')).toBe(false);
    expect(await exists('logs/etl/old')).toBe(false);
    expect(await exists('data/dag-run-work/etl/old')).toBe(false);
    expect((await store.listRuns({})).items).toEqual([]);
    expect(await store.history('etl')).toEqual([]);
  });

  it("removes the artifacts of a DAG's own artifacts.dir that the run recorded, and nothing else", async () => {
    await store.createRun(testRunStatus({ run_id: 'own', status: 'succeeded' }));
    await store.createRun(testRunStatus({ run_id: 'odd', status: 'succeeded' }));
    const own = path.join(home, 'arts', 'etl', 'own');
    await fs.mkdir(own, { recursive: true });
    await fs.writeFile(path.join(own, 'a.txt'), 'x');
    await recordArtifactsDir(path.join(home, 'data'), 'own', own);
    // A record naming a folder that is not this run's is ignored.
    await fs.mkdir(path.join(home, 'keep', 'etl'), { recursive: true });
    await fs.writeFile(path.join(home, 'data/runs/odd/artifacts-dir'), path.join(home, 'keep', 'etl'));
    expect(await store.deleteRun('own')).toEqual({ deleted: true });
    expect(await store.deleteRun('odd')).toEqual({ deleted: true });
    expect(await exists('arts/etl/own')).toBe(false);
    expect(await exists('keep/etl')).toBe(true);
  });

  it('finishes a deletion a crash interrupted, and lists nothing of it meanwhile', async () => {
    // A run created two minutes ago, so a missing directory would otherwise read as corrupt.
    const created = new Date(Date.now() - 120_000).toISOString();
    await store.createRun(testRunStatus({ run_id: 'half', status: 'failed', created_at: created }));
    await fs.mkdir(store.logDir('etl', 'half', 1), { recursive: true });
    // The crash: the run directory was moved aside, nothing else happened.
    await fs.mkdir(path.join(home, 'data/deleted'));
    await fs.rename(path.join(home, 'data/runs/half'), path.join(home, 'data/deleted/half'));
    expect((await store.listRuns({})).items).toEqual([]);
    expect(await store.readStatus('half')).toEqual({ kind: 'missing' });

    expect(await store.purgeDeleted()).toBe(1);
    expect(await exists('data/deleted/half')).toBe(false);
    expect(await exists('logs/etl/half')).toBe(false);
    expect(await store.history('etl')).toEqual([]);
    expect(await store.purgeDeleted()).toBe(0);
  });
});

describe("FileRunStore deletion of a run logged under its DAG's own log_dir", () => {
  it('removes that log directory too, and nothing a record of another shape names', async () => {
    const home = await tempHome();
    const store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
    const own = path.join(home, 'elsewhere', 'etl', 'mine', '1');
    await fs.mkdir(own, { recursive: true });
    await store.createRun(testRunStatus({ run_id: 'mine', status: 'succeeded', log_dir: own }));
    const decoy = path.join(home, 'decoy', '1');
    await fs.mkdir(decoy, { recursive: true });
    await store.createRun(testRunStatus({ run_id: 'odd', status: 'succeeded', log_dir: decoy }));
    expect(await store.deleteRun('mine')).toEqual({ deleted: true });
    expect(await store.deleteRun('odd')).toEqual({ deleted: true });
    await expect(fs.stat(path.join(home, 'elsewhere', 'etl', 'mine'))).rejects.toThrow();
    expect((await fs.stat(path.join(home, 'elsewhere', 'etl'))).isDirectory()).toBe(true);
    expect((await fs.stat(decoy)).isDirectory()).toBe(true);
    await fs.rm(home, { recursive: true, force: true });
  });
});

describe('FileRunStore.readStoredAttempts', () => {
  it('reads every attempt as stored, oldest first, with its claim, heartbeat and note', async () => {
    const home = await tempHome();
    const store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
    const first = testRunStatus({ run_id: 'r1', status: 'failed' });
    await store.createRun(first);
    await store.claimAttempt('r1', 1, 'host-a:42');
    await store.writeHeartbeat('r1', 1, 1_796_000_000_000);
    const second = testRunStatus({ run_id: 'r1', attempt: 2, status: 'running' });
    await store.createAttempt(second);
    await store.recordUnwrittenFinalStatus('r1', 2, { state: 'succeeded', error_code: 'ENOSPC' });
    expect(await store.readStoredAttempts('r1')).toEqual([
      {
        attempt: 1,
        status: { kind: 'ok', value: first },
        claimedBy: 'host-a:42',
        heartbeatMs: 1_796_000_000_000,
        unwritten: null,
      },
      {
        attempt: 2,
        status: { kind: 'ok', value: second },
        claimedBy: null,
        heartbeatMs: null,
        unwritten: { state: 'succeeded', error_code: 'ENOSPC' },
      },
    ]);
    expect(await store.readStoredAttempts('nope')).toBeNull();
    await fs.rm(home, { recursive: true, force: true });
  });

  it('returns an unreadable status as corrupt, with its path, instead of skipping the attempt', async () => {
    const home = await tempHome();
    const store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
    await store.createRun(testRunStatus({ run_id: 'r2', status: 'succeeded' }));
    const file = path.join(home, 'data/runs/r2/attempts/1/status.json');
    await fs.writeFile(file, '{"version":1,"run_');
    const [only] = (await store.readStoredAttempts('r2'))!;
    expect(only.status).toMatchObject({ kind: 'corrupt', path: file });
    await fs.rm(home, { recursive: true, force: true });
  });
});
