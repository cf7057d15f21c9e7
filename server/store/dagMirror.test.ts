// The local mirror of the DAG definitions, on the memory store, fake timers and a real temp directory: what it
// writes at start, how changes reach it (poll, wake-up, a writer's own sync), how it repairs hand edits, and
// how it rides out a store that fails.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeTime } from '../testing/fakeTime';
import { RecordingLogger } from '../testing/recordingLogger';
import type { DagDefinitions, DagEntry } from './dagDefinitions';
import { DagMirror, MIRROR_STATE_FILE } from './dagMirror';
import { MemoryDagDefinitions } from './memoryDagDefinitions';
import { MirroredDagDefinitions } from './mirroredDagDefinitions';

const A = 'steps:\n  - name: a\n    run: echo a\n';
const B = 'steps:\n  - name: b\n    run: echo b\n';

/** Waits for `check` on real time: the mirror's file calls run on the thread pool, not on the fake clock. */
async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const visible = (d: string) => readdirSync(d).filter((f) => !f.startsWith('.'));

/** A store that counts listings and can be made to fail. */
class Probe {
  lists = 0;
  failing: Error | null = null;
  /** While set, a listing is taken and then held back until it resolves. */
  hold: Promise<void> | null = null;
  constructor(readonly store: DagDefinitions) {}
  view(): Pick<DagDefinitions, 'list' | 'getMany' | 'revision'> {
    const guard = () => {
      if (this.failing) throw this.failing;
    };
    return {
      list: async () => {
        guard();
        this.lists++;
        const listed = await this.store.list();
        if (this.hold) await this.hold;
        return listed;
      },
      getMany: async (names) => (guard(), this.store.getMany(names)),
      revision: async () => (guard(), this.store.revision()),
    };
  }
}

describe('DagMirror', () => {
  let root: string;
  let dir: string;
  let time: FakeTime;
  let logger: RecordingLogger;
  let store: MemoryDagDefinitions;
  let probe: Probe;
  let mirror: DagMirror;

  /** The DAG files, without the mirror's hidden state file. */
  const files = () =>
    readdirSync(dir)
      .filter((f) => !f.startsWith('.'))
      .sort();
  const text = (f: string) => readFileSync(path.join(dir, f), 'utf8');

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'dagu-mirror-'));
    dir = path.join(root, 'mirror');
    time = new FakeTime(Date.UTC(2026, 11, 1));
    logger = new RecordingLogger();
    store = new MemoryDagDefinitions(time);
    probe = new Probe(store);
    mirror = new DagMirror({
      store: probe.view(),
      dir,
      clock: time,
      timers: time,
      logger,
      pollMs: 5_000,
      recheckMs: 60_000,
    });
  });

  afterEach(async () => {
    await mirror.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes every DAG of the store into an empty directory before start() resolves', async () => {
    await store.put('etl', A);
    await store.put('report', B, { fileName: 'report.yml' });
    const pass = await mirror.start();
    expect(pass.written).toEqual(['etl', 'report']);
    expect(files()).toEqual(['etl.yaml', 'report.yml']);
    expect(text('etl.yaml')).toBe(A);
    expect(logger.find('Brought the local DAG files in step')).toHaveLength(1);
  });

  it('brings a write, a rename and a delete in at the next poll', async () => {
    await store.put('etl', A);
    await mirror.start();
    await store.put('etl', B);
    await store.put('new', A);
    await time.advance(5_000);
    await eventually(() => existsSync(path.join(dir, 'new.yaml')) && text('etl.yaml') === B);
    await store.rename('new', 'renamed');
    await store.delete('etl');
    await time.advance(5_000);
    await eventually(() => files().join() === 'renamed.yaml');
    expect(text('renamed.yaml')).toBe(A);
  });

  it('lists the store only when its revision moved, or when the directory is due for a recheck', async () => {
    await store.put('etl', A);
    await mirror.start();
    expect(probe.lists).toBe(1);
    for (let i = 0; i < 5; i++) await time.advance(5_000);
    expect(probe.lists).toBe(1);
    await store.put('etl', B);
    await time.advance(5_000);
    await eventually(() => probe.lists === 2 && text('etl.yaml') === B);
    await time.advance(60_000);
    await eventually(() => probe.lists === 3);
  });

  it('puts back files changed or removed by hand, and removes DAG files that are not the store’s, at a recheck', async () => {
    await store.put('etl', A);
    await store.put('report', A);
    await mirror.start();
    writeFileSync(path.join(dir, 'etl.yaml'), 'steps: [] # edited by hand\n');
    rmSync(path.join(dir, 'report.yaml'));
    writeFileSync(path.join(dir, 'stray.yaml'), A);
    writeFileSync(path.join(dir, 'etl.yml'), A); // the store's etl is etl.yaml
    writeFileSync(path.join(dir, 'BAD NAME.YAML'), A);
    writeFileSync(path.join(dir, 'notes.txt'), 'not a DAG file');
    await time.advance(60_000);
    await eventually(() => files().join() === 'etl.yaml,notes.txt,report.yaml');
    expect(text('etl.yaml')).toBe(A);
    expect(text('report.yaml')).toBe(A);
  });

  it('syncs at once on a wake-up, without waiting for the poll', async () => {
    await mirror.start();
    await store.put('etl', A);
    mirror.wake();
    await eventually(() => existsSync(path.join(dir, 'etl.yaml')));
  });

  it('lets a writer that asks for a pass during another one see its own write', async () => {
    await store.put('etl', A);
    await mirror.start();
    let release = () => {};
    probe.hold = new Promise((resolve) => (release = resolve));
    const first = mirror.sync({ force: true });
    await eventually(() => probe.lists === 2); // the first pass has listed, without 'mine'
    await store.put('mine', B);
    const second = mirror.sync();
    probe.hold = null;
    release();
    expect((await first).written).toEqual([]);
    expect((await second).written).toEqual(['mine']);
    expect(text('mine.yaml')).toBe(B);
  });

  it('refuses to start when the store cannot be read', async () => {
    probe.failing = new Error('connection refused');
    await expect(mirror.start()).rejects.toThrow('connection refused');
    expect(existsSync(dir)).toBe(false);
  });

  it('keeps the last copy while polls fail, logs that once, and catches up when the store answers again', async () => {
    await store.put('etl', A);
    await mirror.start();
    probe.failing = new Error('the database went away');
    await store.put('etl', B);
    for (let i = 0; i < 3; i++) await time.advance(5_000);
    expect(logger.find('Cannot bring the local DAG files')).toHaveLength(1);
    expect(text('etl.yaml')).toBe(A);
    probe.failing = null;
    await time.advance(5_000);
    await eventually(() => text('etl.yaml') === B);
    await eventually(() => logger.find('in step with the database again').length === 1);
  });

  it('lets a later process of the host skip the compare while the revision has not moved', async () => {
    await store.put('etl', A);
    await mirror.start();
    const later = (p: Probe) =>
      new DagMirror({ store: p.view(), dir, clock: time, timers: time, logger, pollMs: 5_000 });
    const quiet = new Probe(store);
    expect(await later(quiet).sync()).toEqual({ written: [], removed: [], compared: false });
    expect(quiet.lists).toBe(0);
    await store.put('etl', B);
    const moved = new Probe(store);
    expect(await later(moved).sync()).toEqual({ written: ['etl'], removed: [], compared: true });
    expect(moved.lists).toBe(1);
    // A state file that cannot be read only costs a full compare.
    writeFileSync(path.join(dir, MIRROR_STATE_FILE), '{not json');
    const lost = new Probe(store);
    expect(await later(lost).sync()).toMatchObject({ written: [], compared: true });
  });

  it('never writes outside its directory, whatever names the store lists', async () => {
    const evil: DagEntry = {
      name: '../escape',
      fileName: '../escape.yaml',
      version: 'sha256:0',
      updatedAt: '2026-12-01T00:00:00.000Z',
      updatedBy: null,
    };
    const m = new DagMirror({
      store: { list: async () => [evil], getMany: async () => [], revision: async () => '1' },
      dir,
      clock: time,
      timers: time,
      logger,
    });
    await m.start();
    await m.stop();
    expect(existsSync(path.join(root, 'escape.yaml'))).toBe(false);
    expect(logger.find('Skipping a DAG whose name cannot be a file name')).toHaveLength(1);
  });
});

describe('MirroredDagDefinitions', () => {
  it('has the write in the mirror when the write resolves, and keeps a made write when the refresh fails', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'dagu-mirror-'));
    try {
      const time = new FakeTime(Date.UTC(2026, 11, 1));
      const logger = new RecordingLogger();
      const store = new MemoryDagDefinitions(time);
      const mirror = new DagMirror({ store, dir: root, clock: time, timers: time, logger });
      const dags = new MirroredDagDefinitions(store, mirror, logger);
      expect(await dags.put('etl', A)).toMatchObject({ ok: true, outcome: 'created' });
      expect(readFileSync(path.join(root, 'etl.yaml'), 'utf8')).toBe(A);
      expect(await dags.rename('etl', 'load')).toMatchObject({ ok: true });
      expect(visible(root)).toEqual(['load.yaml']);
      expect(await dags.delete('load')).toEqual({ ok: true });
      expect(visible(root)).toEqual([]);

      const broken = new MirroredDagDefinitions(
        store,
        { sync: () => Promise.reject(new Error('disk full')) },
        logger,
      );
      expect(await broken.put('etl', B)).toMatchObject({ ok: true, outcome: 'created' });
      expect((await store.get('etl'))?.yaml).toBe(B);
      expect(logger.find('could not refresh the local DAG files')).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
