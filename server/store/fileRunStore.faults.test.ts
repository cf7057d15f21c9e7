// FileRunStore when a write fails at each point of a run's life (ENOSPC, EIO, EROFS, EDQUOT): the file calls
// are wrapped so that a chosen call on a chosen path fails, and the test checks what is left on disk.

import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunCreateError } from './errors';
import type * as FileCalls from './fileCalls';
import { FileRunStore } from './fileRunStore';
import { testRunStatus } from '../testing/testRunStatus';

/** A rule: the next `times` calls of `op` on a path matching `path` fail with `code`. */
interface Fault {
  op: string;
  path: RegExp;
  code: string;
  times: number;
}

const faults = vi.hoisted(() => ({ rules: [] as Fault[], fdPaths: new Map<number, string>() }));

vi.mock('./fileCalls', async (importOriginal) => {
  const real = await importOriginal<typeof FileCalls>();
  const check = (op: string, target: string | undefined) => {
    const rule = faults.rules.find((r) => r.op === op && r.times > 0 && r.path.test(target ?? ''));
    if (!rule) return;
    rule.times--;
    throw Object.assign(new Error(`${rule.code}: injected ${op} failure, '${target}'`), { code: rule.code });
  };
  const byPath =
    <A extends unknown[], R>(op: string, fn: (...args: A) => Promise<R>, at = 0) =>
    async (...args: A): Promise<R> => {
      check(op, args[at] as string);
      return fn(...args);
    };
  const byFd =
    <A extends unknown[], R>(op: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      check(op, faults.fdPaths.get(args[0] as number));
      return fn(...args);
    };
  return {
    ...real,
    open: async (file: string, flags: string, mode?: number) => {
      check('open', file);
      const fd = await real.open(file, flags, mode);
      faults.fdPaths.set(fd, file);
      return fd;
    },
    writeAll: byFd('write', real.writeAll),
    fsync: byFd('fsync', real.fsync),
    close: async (fd: number) => {
      // The descriptor is closed whatever happens: a failing close still releases it, as close(2) does.
      const file = faults.fdPaths.get(fd);
      faults.fdPaths.delete(fd);
      await real.close(fd);
      check('close', file);
    },
    mkdir: byPath('mkdir', real.mkdir),
    rename: byPath('rename', real.rename, 1),
    link: byPath('link', real.link, 1),
    unlink: byPath('unlink', real.unlink),
    writeFile: byPath('writeFile', real.writeFile),
    removeTree: byPath('removeTree', real.removeTree),
  };
});

function failNext(op: string, pathPattern: RegExp, code: string, times = 1) {
  faults.rules.push({ op, path: pathPattern, code, times });
}

/** Every file and directory under `dir`, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(d, e.name);
      out.push(path.relative(dir, full));
      if (e.isDirectory()) await walk(full);
    }
  };
  await walk(dir);
  return out.sort();
}

async function age(...dirs: string[]) {
  const hourAgo = new Date(Date.now() - 3600_000);
  for (const d of dirs) await fs.utimes(d, hourAgo, hourAgo);
}

describe('FileRunStore when writes fail', () => {
  let home: string;
  let dataDir: string;
  let store: FileRunStore;
  const running = (over: Record<string, unknown> = {}) =>
    testRunStatus({ run_id: 'r1', status: 'running', created_at: new Date().toISOString(), ...over });
  const runDir = (id = 'r1') => path.join(dataDir, 'runs', id);

  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-runstore-faults-'));
    dataDir = path.join(home, 'data');
    store = new FileRunStore({ dataDir, logDir: path.join(home, 'logs') });
    faults.rules = [];
  });
  afterEach(async () => {
    faults.rules = [];
    await fs.rm(home, { recursive: true, force: true });
  });

  /** Nothing of the run is left: not listed, not active, no status, no temp file; and the ID can be used. */
  async function expectNoTrace() {
    expect((await store.listRuns({})).items).toEqual([]);
    expect((await store.listRuns({ dag: 'etl' })).items).toEqual([]);
    expect(await store.listActive()).toEqual([]);
    expect(await store.readStatus('r1')).toEqual({ kind: 'missing' });
    const left = await tree(dataDir);
    expect(left.filter((p) => p.includes('.tmp-') || p.startsWith('runs/') || p.includes('~r1'))).toEqual([]);
    expect(await store.createRun(running())).toEqual({ created: true });
    expect((await store.listRuns({})).items.map((r) => [r.run_id, r.status])).toEqual([['r1', 'running']]);
  }

  const creationFaults: Array<[string, string, RegExp, string]> = [
    ['the run-list entry', 'writeFile', /index\/all\//, 'ENOSPC'],
    ["the attempt's directory", 'mkdir', /attempts\/1$/, 'EIO'],
    ['the active marker', 'write', /active\/\.r1\.json\.tmp-/, 'ENOSPC'],
    ['the status data', 'write', /status\.json\.tmp-/, 'ENOSPC'],
    ['the status fsync', 'fsync', /status\.json\.tmp-/, 'EIO'],
    ['the status close (NFS reports a short write there)', 'close', /status\.json\.tmp-/, 'EDQUOT'],
    ['the status rename', 'rename', /status\.json$/, 'EROFS'],
  ];
  for (const [what, op, where, code] of creationFaults) {
    it(`rolls a new run back when ${what} cannot be written (${code}): nothing is listed, active or left`, async () => {
      failNext(op, where, code);
      const err = await store.createRun(running()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunCreateError);
      expect(err).toMatchObject({ runId: 'r1', attempt: 1, code, leftover: null });
      expect((err as Error).message).toMatch(new RegExp(`^could not create run r1: ${code}: injected`));
      await expectNoTrace();
    });
  }

  it('shows a run whose rollback failed too as corrupt with the reason once abandoned, never as nothing', async () => {
    failNext('write', /status\.json\.tmp-/, 'EIO');
    failNext('removeTree', /runs\/r1$/, 'EIO');
    failNext('unlink', /active\/r1\.json$/, 'EIO');
    const err = (await store.createRun(running()).catch((e: unknown) => e)) as RunCreateError;
    expect(err.leftover).toBe(`its active marker, ${runDir()}`);
    expect(err.message).toMatch(/could not be removed \(run r1 is shown as corrupt\)$/);
    // Young: being created as far as anyone can tell, so hidden, and its marker is what the reaper goes by.
    expect((await store.listRuns({})).items).toEqual([]);
    expect(await store.listActive()).toEqual([{ run_id: 'r1', dag_name: 'etl', queue: 'etl' }]);
    expect(await store.readStatus('r1')).toEqual({ kind: 'missing' });

    await age(runDir(), path.join(runDir(), 'attempts', '1'));
    const [entry] = (await store.listRuns({})).items;
    expect(entry).toMatchObject({ run_id: 'r1', dag_name: 'etl', status: 'corrupt' });
    expect(entry.error).toMatch(/attempt 1 has no status file: the process that created it probably crashed/);
    expect(await store.readStatus('r1')).toMatchObject({ kind: 'corrupt', incomplete: true });
    expect(await store.createRun(running())).toEqual({ created: false, reason: 'exists' });
  });

  it('lists a run whose creator died before its status once it is abandoned, with the reason', async () => {
    // The creator got as far as the run-list entries and the attempt directory, then died.
    failNext('mkdir', /attempts$/, 'EIO');
    failNext('removeTree', /runs\/r1$/, 'EIO');
    failNext('unlink', /index\/all\//, 'EIO');
    await store.createRun(running({ created_at: '2026-03-01T10:00:00.000Z' })).catch(() => undefined);
    await age(runDir());
    const [entry] = (await store.listRuns({})).items;
    expect(entry).toMatchObject({ run_id: 'r1', status: 'corrupt', created_at: '2026-03-01T10:00:00.000Z' });
    expect(entry.error).toMatch(/the run directory has no attempt/);
  });

  it('hides a list entry whose run directory is gone while it is young, and shows it as corrupt afterwards', async () => {
    await store.createRun(running());
    await fs.rm(runDir(), { recursive: true });
    expect((await store.listRuns({})).items).toEqual([]);
    const old = testRunStatus({ run_id: 'old', created_at: '2026-03-01T10:00:00.000Z' });
    await store.createRun(old);
    await fs.rm(runDir('old'), { recursive: true });
    expect((await store.listRuns({})).items.map((r) => [r.run_id, r.status, r.error])).toEqual([
      ['old', 'corrupt', 'the run is in the index but its run directory is missing'],
    ]);
  });

  it('rolls a new attempt back when its status cannot be written, leaving the previous attempt as it was', async () => {
    await store.createRun(running({ status: 'failed' }));
    failNext('write', /attempts\/2\/\.status\.json\.tmp-/, 'ENOSPC');
    const err = await store.createAttempt(running({ attempt: 2 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunCreateError);
    expect((err as Error).message).toMatch(/^could not create attempt 2 of run r1: ENOSPC/);
    expect(await fs.readdir(path.join(runDir(), 'attempts'))).toEqual(['1']);
    expect(await store.listActive()).toEqual([]);
    const read = await store.readStatus('r1');
    expect(read.kind === 'ok' && [read.status.attempt, read.status.status]).toEqual([1, 'failed']);
    await store.createAttempt(running({ attempt: 2 }));
    expect(await store.listActive()).toEqual([{ run_id: 'r1', dag_name: 'etl', queue: 'etl' }]);
  });

  for (const [op, code] of [
    ['write', 'ENOSPC'],
    ['fsync', 'EIO'],
    ['close', 'EDQUOT'],
    ['rename', 'EROFS'],
  ] as const) {
    it(`keeps the last whole status when a status change cannot be written (${op}: ${code}), with no temp file left`, async () => {
      await store.createRun(running());
      const before = await store.readStatus('r1');
      failNext(op, /status\.json/, code);
      await expect(store.writeStatus(running({ status: 'succeeded' }))).rejects.toMatchObject({ code });
      expect(await store.readStatus('r1')).toEqual(before);
      expect(await fs.readdir(path.join(runDir(), 'attempts', '1'))).toEqual(['status.json']);
    });
  }

  it('leaves the marker of a run when removing it fails, and reads it back', async () => {
    await store.createRun(running());
    failNext('unlink', /active\/r1\.json$/, 'EIO');
    await expect(store.unmarkActive('r1')).rejects.toMatchObject({ code: 'EIO' });
    expect(await store.listActive()).toEqual([{ run_id: 'r1', dag_name: 'etl', queue: 'etl' }]);
  });

  it('records the note of an unwritten final status while no data can be written, since it holds none', async () => {
    await store.createRun(running());
    failNext('write', /./, 'ENOSPC', 1000);
    await expect(store.writeStatus(running({ status: 'succeeded' }))).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    await store.recordUnwrittenFinalStatus('r1', 1, { state: 'succeeded', error_code: 'ENOSPC' });
    expect(await store.readUnwrittenFinalStatus('r1', 1)).toEqual({
      state: 'succeeded',
      error_code: 'ENOSPC',
    });
    expect(await fs.readdir(path.join(runDir(), 'attempts', '1'))).toEqual([
      'final-status-unwritten~succeeded~ENOSPC',
      'status.json',
    ]);
  });
});
