import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MANIFEST_SCHEMA_VERSION,
  MaterializationRecoveryError,
  type FileSnapshot,
  type Materialization,
  type PathLocks,
} from '../core/build/types';
import { buildPathKey } from './buildFiles';
import { FileMaterializationStore } from './fileMaterializations';
import type { CorruptFileReport } from './fsutil';

let root: string;
let storeDir: string;
let store: FileMaterializationStore;
let reports: CorruptFileReport[];
const children: ChildProcess[] = [];
const held: PathLocks[] = [];
/** Acquisitions a test left waiting: cancelled and awaited before the directory goes. */
const pending: Promise<unknown>[] = [];
let stop: AbortController;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-materializations-')));
  storeDir = path.join(root, 'data', 'build');
  reports = [];
  store = new FileMaterializationStore(storeDir, (r) => reports.push(r));
  stop = new AbortController();
});
afterEach(async () => {
  stop.abort();
  await Promise.allSettled(pending.splice(0));
  for (const locks of held.splice(0)) await locks.release();
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await fs.rm(root, { recursive: true, force: true });
});

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function snapshotOf(name: string, file: string, content: string): FileSnapshot {
  return { name, path: file, size: Buffer.byteLength(content), digest: `sha256:${sha256Hex(content)}` };
}

const KEY = sha256Hex('etl\0compile\0out.txt');

function manifestFor(finalPath: string, content: string, commitId: string): Materialization {
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    materialization_key: KEY,
    commit_id: commitId,
    dag_name: 'etl',
    step_id: 'compile',
    recipe_digest: 'sha256:recipe',
    fingerprint: 'sha256:fingerprint',
    inputs: [],
    output: snapshotOf('out', finalPath, content),
    producer_run: { dag_name: 'etl', run_id: `run-${commitId}` },
    producer_attempt: 1,
    completed_at: '2026-12-05T10:00:00Z',
  };
}

async function take(
  key: string,
  mode: 'shared' | 'exclusive',
  signal?: AbortSignal,
  on = store,
): Promise<PathLocks> {
  return track(on.acquire([{ key, mode }], signal ?? stop.signal));
}

/** `acquiring`, its locks released after the test, and cancelled then if it is still waiting. */
function track(acquiring: Promise<PathLocks>): Promise<PathLocks> {
  const locks = acquiring.then((l) => {
    held.push(l);
    return l;
  });
  pending.push(locks);
  return locks;
}

/** Resolves to 'pending' when `promise` has not settled within `ms`. */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

async function readIfPresent(file: string): Promise<string | null> {
  return fs.readFile(file, 'utf8').catch(() => null);
}

const manifestFile = () => path.join(storeDir, 'manifests', `${KEY}.json`);

/** A file system entry per name in `dir`, or [] when the directory is gone. */
async function entries(dir: string): Promise<string[]> {
  return (await fs.readdir(dir).catch(() => [])).sort();
}

/** A separate process that takes the lock of `key` in `mode` and keeps it until it is killed. */
async function holderProcess(key: string, mode: 'shared' | 'exclusive'): Promise<ChildProcess> {
  const module = fileURLToPath(new URL('./fileMaterializations.ts', import.meta.url));
  const code = `import(${JSON.stringify(module)}).then(async (m) => {
    await new m.FileMaterializationStore(${JSON.stringify(storeDir)}).acquire([{ key: ${JSON.stringify(key)}, mode: ${JSON.stringify(mode)} }]);
    console.log('held');
    setInterval(() => {}, 1000);
  });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`holder process exited with ${code}`)));
  });
  return child;
}

describe('FileMaterializationStore.get', () => {
  it('is null when there is no manifest', async () => {
    expect(await store.get(KEY)).toBeNull();
  });

  it('reads a committed manifest and ignores one of another schema version', async () => {
    const manifest = manifestFor(path.join(root, 'out.txt'), 'x', 'c1');
    await fs.mkdir(path.dirname(manifestFile()), { recursive: true });
    await fs.writeFile(manifestFile(), JSON.stringify(manifest));
    expect(await store.get(KEY)).toEqual(manifest);
    await fs.writeFile(manifestFile(), JSON.stringify({ ...manifest, schema_version: 99 }));
    expect(await store.get(KEY)).toBeNull();
    expect(reports).toEqual([]);
  });

  it('treats a corrupt manifest as missing and reports it', async () => {
    await fs.mkdir(path.dirname(manifestFile()), { recursive: true });
    await fs.writeFile(manifestFile(), '{"schema_version": 1, "commit');
    expect(await store.get(KEY)).toBeNull();
    const manifest = manifestFor(path.join(root, 'out.txt'), 'x', 'c1');
    await fs.writeFile(manifestFile(), JSON.stringify({ ...manifest, output: { size: 'big' } }));
    expect(await store.get(KEY)).toBeNull();
    expect(reports.map((r) => r.path)).toEqual([manifestFile(), manifestFile()]);
    expect(reports[1].error).toContain('invalid output');
  });

  it('refuses a key that is not a plain file name', async () => {
    await expect(store.get('../escape')).rejects.toThrow('invalid materialization key');
  });
});

describe('FileMaterializationStore.commit', () => {
  let finalPath: string;
  let finalKey: string;
  beforeEach(async () => {
    finalPath = path.join(root, 'out.txt');
    finalKey = await buildPathKey(finalPath);
  });

  async function stage(content: string, name = '.out.txt.stage'): Promise<string> {
    const file = path.join(root, name);
    await fs.writeFile(file, content);
    return file;
  }

  it('publishes the staged output and its manifest, leaving nothing else behind', async () => {
    const locks = await take(finalKey, 'exclusive');
    const manifest = manifestFor(finalPath, 'v1', 'c1');
    await store.commit(locks, {
      stagingPath: await stage('v1'),
      finalPath,
      manifest,
      preserveManifest: false,
    });
    expect(await fs.readFile(finalPath, 'utf8')).toBe('v1');
    expect(await store.get(KEY)).toEqual(manifest);
    expect(await entries(root)).toEqual(['data', 'out.txt']);
    expect(await entries(path.join(storeDir, 'journals'))).toEqual([]);
  });

  it('replaces a previous output and manifest', async () => {
    await fs.writeFile(finalPath, 'old');
    const locks = await take(finalKey, 'exclusive');
    await store.commit(locks, {
      stagingPath: await stage('v1'),
      finalPath,
      manifest: manifestFor(finalPath, 'v1', 'c1'),
      preserveManifest: false,
    });
    const second = manifestFor(finalPath, 'v2', 'c2');
    await store.commit(locks, {
      stagingPath: await stage('v2'),
      finalPath,
      manifest: second,
      preserveManifest: false,
    });
    expect(await fs.readFile(finalPath, 'utf8')).toBe('v2');
    expect(await store.get(KEY)).toEqual(second);
    expect(await entries(root)).toEqual(['data', 'out.txt']); // no backup left
  });

  it('publishes the output but keeps the manifest as it was when told to', async () => {
    const locks = await take(finalKey, 'exclusive');
    await store.commit(locks, {
      stagingPath: await stage('v1'),
      finalPath,
      manifest: manifestFor(finalPath, 'v1', 'c1'),
      preserveManifest: true,
    });
    expect(await fs.readFile(finalPath, 'utf8')).toBe('v1');
    expect(await store.get(KEY)).toBeNull();
    const first = manifestFor(finalPath, 'v2', 'c2');
    await store.commit(locks, {
      stagingPath: await stage('v2'),
      finalPath,
      manifest: first,
      preserveManifest: false,
    });
    await store.commit(locks, {
      stagingPath: await stage('v3'),
      finalPath,
      manifest: manifestFor(finalPath, 'v3', 'c3'),
      preserveManifest: true,
    });
    expect(await fs.readFile(finalPath, 'utf8')).toBe('v3');
    expect(await store.get(KEY)).toEqual(first);
  });

  it('needs locks of this store that hold the final path exclusively', async () => {
    const manifest = manifestFor(finalPath, 'v1', 'c1');
    const req = { stagingPath: await stage('v1'), finalPath, manifest, preserveManifest: false };
    const other = new FileMaterializationStore(path.join(root, 'other'));
    const foreign = await take(finalKey, 'exclusive', undefined, other);
    await expect(store.commit(foreign, req)).rejects.toThrow('path locks held from this store');
    await foreign.release();
    await expect(store.commit({ release: async () => {} }, req)).rejects.toThrow(
      'path locks held from this store',
    );

    const shared = await take(finalKey, 'shared');
    await expect(store.commit(shared, req)).rejects.toThrow(`needs an exclusive lock on that path`);
    await shared.release();
    const elsewhere = await take(path.join(root, 'another.txt'), 'exclusive');
    await expect(store.commit(elsewhere, req)).rejects.toThrow(`needs an exclusive lock on that path`);
    await elsewhere.release();
    await expect(store.commit(elsewhere, req)).rejects.toThrow('path locks held from this store');
    expect(await readIfPresent(finalPath)).toBeNull();
  });

  it('refuses to commit under a lock that was lost: its holder file removed, or its lease run out', async () => {
    await fs.writeFile(finalPath, 'old');
    const holderFiles = async () => {
      const locksDir = path.join(storeDir, 'locks');
      const dirs = await entries(locksDir);
      const files = await Promise.all(
        dirs.map(async (d) => (await entries(path.join(locksDir, d))).map((f) => path.join(locksDir, d, f))),
      );
      return files.flat();
    };
    const commit = async (locks: PathLocks) =>
      store.commit(locks, {
        stagingPath: await stage('v1'),
        finalPath,
        manifest: manifestFor(finalPath, 'v1', 'c1'),
        preserveManifest: false,
      });

    // Another host judged the holder stale (its lease not renewed in time) and removed it.
    const removed = await take(finalKey, 'exclusive');
    const [file] = await holderFiles();
    await fs.rm(file);
    await expect(commit(removed)).rejects.toThrow(
      `build commit of ${finalPath} refused: the lock on ${finalKey} was lost: its holder file was removed as stale`,
    );
    await removed.release();

    // Not renewed for two minutes (the process was stopped): any other host may take it at any moment.
    const expired = await take(finalKey, 'exclusive');
    const old = new Date(Date.now() - 120_000);
    for (const f of await holderFiles()) await fs.utimes(f, old, old);
    await expect(commit(expired)).rejects.toThrow(
      /its lease was last renewed 12\d s ago, past its 60 s expiry/,
    );
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await store.get(KEY)).toBeNull();
  });

  it('refuses a staged file in another directory or with other content than the manifest says', async () => {
    await fs.writeFile(finalPath, 'old');
    const locks = await take(finalKey, 'exclusive');
    await fs.mkdir(path.join(root, 'sub'));
    const manifest = manifestFor(finalPath, 'v1', 'c1');
    await expect(
      store.commit(locks, {
        stagingPath: await stage('v1', 'sub/out.stage'),
        finalPath,
        manifest,
        preserveManifest: false,
      }),
    ).rejects.toThrow('is not in the directory of');
    await expect(
      store.commit(locks, {
        stagingPath: await stage('tampered'),
        finalPath,
        manifest,
        preserveManifest: false,
      }),
    ).rejects.toThrow("does not match the manifest's output");
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await store.get(KEY)).toBeNull();
    expect(await entries(path.join(storeDir, 'journals'))).toEqual([]);
  });

  it('will not overwrite the journal of a commit that is still to be recovered', async () => {
    await fs.writeFile(finalPath, 'old');
    const locks = await take(finalKey, 'exclusive');
    const journal = path.join(storeDir, 'journals', `${sha256Hex(finalKey)}.json`);
    await fs.mkdir(path.dirname(journal), { recursive: true });
    await fs.writeFile(journal, '{"left": "by a failed rollback"}');
    await expect(
      store.commit(locks, {
        stagingPath: await stage('v1'),
        finalPath,
        manifest: manifestFor(finalPath, 'v1', 'c1'),
        preserveManifest: false,
      }),
    ).rejects.toThrow('awaits recovery');
    expect(await fs.readFile(journal, 'utf8')).toBe('{"left": "by a failed rollback"}');
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
  });

  it('rolls the output back when the manifest cannot be written', async () => {
    await fs.writeFile(finalPath, 'old');
    const locks = await take(finalKey, 'exclusive');
    await fs.writeFile(path.join(storeDir, 'manifests'), 'a file where the directory should be');
    await expect(
      store.commit(locks, {
        stagingPath: await stage('v1'),
        finalPath,
        manifest: manifestFor(finalPath, 'v1', 'c1'),
        preserveManifest: false,
      }),
    ).rejects.toThrow(/EEXIST|ENOTDIR/);
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await entries(root)).toEqual(['data', 'out.txt']); // staging consumed, backup put back
    expect(await entries(path.join(storeDir, 'journals'))).toEqual([]);
  });
});

describe('FileMaterializationStore recovery of an interrupted commit', () => {
  let finalPath: string;
  let finalKey: string;
  let backupPath: string;
  const previousManifest = () => `${JSON.stringify(manifestFor(finalPath, 'old', 'c0'), null, 2)}\n`;
  const proposed = () => manifestFor(finalPath, 'new', 'c1');
  beforeEach(async () => {
    finalPath = path.join(root, 'out.txt');
    finalKey = await buildPathKey(finalPath);
    backupPath = path.join(root, `.dagu-backup-${sha256Hex(`${finalPath}\0c1`)}`);
  });

  /** The journal a commit of 'new' over 'old' writes first, as a crash after some of its steps leaves it. */
  async function crashedJournal(opts: { previous: boolean; preserveManifest?: boolean }): Promise<string> {
    const file = path.join(storeDir, 'journals', `${sha256Hex(finalKey)}.json`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const journal = {
      final_path: finalPath,
      backup_path: backupPath,
      materialization_key: KEY,
      previous_final: opts.previous ? snapshotOf('', finalPath, 'old') : null,
      previous_manifest: opts.previous ? previousManifest() : null,
      proposed: proposed(),
      preserve_manifest: opts.preserveManifest ?? false,
    };
    await fs.writeFile(file, JSON.stringify(journal));
    return file;
  }

  async function writeManifest(text: string): Promise<void> {
    await fs.mkdir(path.dirname(manifestFile()), { recursive: true });
    await fs.writeFile(manifestFile(), text);
  }

  it('puts the previous state back after a crash before the output was replaced', async () => {
    const journal = await crashedJournal({ previous: true });
    await fs.writeFile(finalPath, 'old');
    await fs.link(finalPath, backupPath); // the backup was made, the rename not yet
    await writeManifest(previousManifest());
    await take(finalKey, 'exclusive');
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await readIfPresent(manifestFile())).toBe(previousManifest());
    expect(await readIfPresent(backupPath)).toBeNull();
    expect(await readIfPresent(journal)).toBeNull();
  });

  it('restores the previous output from its backup after a crash before the manifest was written', async () => {
    const journal = await crashedJournal({ previous: true });
    await fs.writeFile(backupPath, 'old');
    await fs.writeFile(finalPath, 'new');
    await writeManifest(previousManifest());
    await take(finalKey, 'exclusive');
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await store.get(KEY)).toEqual(manifestFor(finalPath, 'old', 'c0'));
    expect(await readIfPresent(backupPath)).toBeNull();
    expect(await readIfPresent(journal)).toBeNull();
  });

  it('puts the previous manifest back whatever is in its place when rolling back', async () => {
    await crashedJournal({ previous: true });
    await fs.writeFile(backupPath, 'old');
    await writeManifest(JSON.stringify(manifestFor(finalPath, 'other', 'c9'))); // final is missing
    await take(finalKey, 'exclusive');
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await readIfPresent(manifestFile())).toBe(previousManifest());
  });

  it('rolls forward a commit that wrote its manifest before the crash', async () => {
    const journal = await crashedJournal({ previous: true });
    await fs.writeFile(backupPath, 'old');
    await fs.writeFile(finalPath, 'new');
    await writeManifest(JSON.stringify(proposed()));
    await take(finalKey, 'exclusive');
    expect(await fs.readFile(finalPath, 'utf8')).toBe('new');
    expect(await store.get(KEY)).toEqual(proposed());
    expect(await readIfPresent(backupPath)).toBeNull();
    expect(await readIfPresent(journal)).toBeNull();
  });

  it('rolls forward a preserved-manifest commit whose output was published', async () => {
    const journal = await crashedJournal({ previous: true, preserveManifest: true });
    await fs.writeFile(backupPath, 'old');
    await fs.writeFile(finalPath, 'new');
    await writeManifest(previousManifest());
    await take(finalKey, 'exclusive');
    expect(await fs.readFile(finalPath, 'utf8')).toBe('new');
    expect(await readIfPresent(manifestFile())).toBe(previousManifest());
    expect(await readIfPresent(journal)).toBeNull();
  });

  it('removes an output and manifest that did not exist before the interrupted commit', async () => {
    const journal = await crashedJournal({ previous: false });
    await fs.writeFile(finalPath, 'new');
    await take(finalKey, 'exclusive');
    expect(await readIfPresent(finalPath)).toBeNull();
    expect(await readIfPresent(manifestFile())).toBeNull();
    expect(await readIfPresent(journal)).toBeNull();
  });

  it('refuses to touch an output that is neither the previous nor the proposed one, once', async () => {
    const journal = await crashedJournal({ previous: true });
    await fs.writeFile(backupPath, 'old');
    await fs.writeFile(finalPath, 'edited by hand');
    await writeManifest(previousManifest());
    const failure = store.acquire([{ key: finalKey, mode: 'exclusive' }]);
    await expect(failure).rejects.toBeInstanceOf(MaterializationRecoveryError);
    await expect(failure).rejects.toThrow(
      'current output cannot be identified as the previous or proposed materialization',
    );
    expect(await fs.readFile(finalPath, 'utf8')).toBe('edited by hand');
    expect(await fs.readFile(backupPath, 'utf8')).toBe('old'); // kept for a person to look at
    expect(await readIfPresent(journal)).toBeNull();
    await take(finalKey, 'exclusive'); // no lock was left behind, and the path goes on
  });

  it('does the same when there was no previous output', async () => {
    await crashedJournal({ previous: false });
    await fs.writeFile(finalPath, 'someone else');
    await expect(store.acquire([{ key: finalKey, mode: 'exclusive' }])).rejects.toThrow(
      MaterializationRecoveryError,
    );
    expect(await fs.readFile(finalPath, 'utf8')).toBe('someone else');
  });

  it('drops a corrupt journal with a recovery error', async () => {
    const journal = await crashedJournal({ previous: true });
    await fs.writeFile(journal, '{"final_path": "/x"');
    await fs.writeFile(finalPath, 'old');
    await expect(store.acquire([{ key: finalKey, mode: 'exclusive' }])).rejects.toThrow(
      /unreadable commit journal .*invalid JSON/,
    );
    expect(await readIfPresent(journal)).toBeNull();
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
  });

  it('has a shared acquirer recover the commit before it reads the path', async () => {
    const journal = await crashedJournal({ previous: true });
    await fs.writeFile(backupPath, 'old');
    await fs.writeFile(finalPath, 'new');
    await writeManifest(previousManifest());
    const other = path.join(root, 'a-first.txt'); // sorted before the output: taken, released, taken again
    const locks = await store.acquire([
      { key: finalKey, mode: 'shared' },
      { key: other, mode: 'shared' },
    ]);
    held.push(locks);
    expect(await fs.readFile(finalPath, 'utf8')).toBe('old');
    expect(await readIfPresent(journal)).toBeNull();
    // And what it holds now is shared: a second reader gets in.
    await take(finalKey, 'shared');
  });
});

describe('FileMaterializationStore path locks', () => {
  const KEY_A = '/data/a.txt';
  const lockDirOf = (key: string) => path.join(storeDir, 'locks', sha256Hex(key));

  it('lets two exclusive holders in only one at a time, across store instances', async () => {
    const first = await take(KEY_A, 'exclusive');
    const second = take(KEY_A, 'exclusive', undefined, new FileMaterializationStore(storeDir));
    expect(await settledWithin(second, 200)).toBe('pending');
    await first.release();
    await second;
  });

  it('lets shared holders in together', async () => {
    await take(KEY_A, 'shared');
    expect(await settledWithin(take(KEY_A, 'shared'), 1000)).not.toBe('pending');
  });

  it('has an exclusive holder wait for every shared one, and keeps new readers out meanwhile', async () => {
    const r1 = await take(KEY_A, 'shared');
    const r2 = await take(KEY_A, 'shared');
    const writer = take(KEY_A, 'exclusive');
    expect(await settledWithin(writer, 150)).toBe('pending');
    const lateReader = take(KEY_A, 'shared');
    await r1.release();
    expect(await settledWithin(writer, 150)).toBe('pending');
    await r2.release();
    const w = await writer;
    expect(await settledWithin(lateReader, 150)).toBe('pending');
    await w.release();
    await lateReader;
  });

  it('merges duplicate requests, the exclusive one winning', async () => {
    await store
      .acquire([
        { key: KEY_A, mode: 'shared' },
        { key: KEY_A, mode: 'exclusive' },
      ])
      .then((l) => held.push(l));
    expect(await settledWithin(take(KEY_A, 'shared'), 150)).toBe('pending');
  });

  it('rejects a cancelled wait and leaves no holder file behind', async () => {
    const first = await take(KEY_A, 'exclusive');
    const abort = new AbortController();
    const waiting = store.acquire(
      [
        { key: '/data/0-before.txt', mode: 'shared' },
        { key: KEY_A, mode: 'exclusive' },
      ],
      abort.signal,
    );
    setTimeout(() => abort.abort(), 100);
    await expect(waiting).rejects.toThrow(/wait for the lock on build path \/data\/a\.txt cancelled/);
    expect(await entries(lockDirOf('/data/0-before.txt'))).toEqual([]);
    expect((await entries(lockDirOf(KEY_A))).length).toBe(1); // the first holder's own file
    await first.release();
    expect(await entries(path.join(storeDir, 'locks'))).toEqual([]);
    await expect(store.acquire([{ key: KEY_A, mode: 'shared' }], AbortSignal.abort())).rejects.toThrow(
      'cancelled',
    );
  });

  it('releases once, however often it is asked', async () => {
    const first = await take(KEY_A, 'exclusive');
    await first.release();
    const second = await take(KEY_A, 'exclusive');
    await first.release(); // must not remove the second holder's file
    expect(await settledWithin(take(KEY_A, 'shared'), 150)).toBe('pending');
    await second.release();
  });

  it("excludes another process's writer, and takes over its lock once that process is killed", async () => {
    const child = await holderProcess(KEY_A, 'exclusive');
    const waiting = take(KEY_A, 'shared');
    expect(await settledWithin(waiting, 300)).toBe('pending');
    child.kill('SIGKILL'); // no chance to release: its holder file stays, with a dead pid
    await new Promise((r) => child.once('exit', r));
    await waiting;
    expect(await entries(lockDirOf(KEY_A))).toHaveLength(1); // the dead holder's file is gone
  });

  it("has a writer wait for another process's reader until that one dies", async () => {
    const child = await holderProcess(KEY_A, 'shared');
    await take(KEY_A, 'shared').then((l) => l.release()); // readers of two processes together
    const writer = take(KEY_A, 'exclusive');
    expect(await settledWithin(writer, 300)).toBe('pending');
    child.kill('SIGKILL');
    await writer;
  });
});

describe('FileMaterializationStore path locks on storage shared by hosts', () => {
  const KEY_A = '/data/a.txt';
  const lockDirOf = (key: string) => path.join(storeDir, 'locks', sha256Hex(key));
  const LEASES = { leaseRefreshMs: 50, leaseExpiryMs: 300 };
  /** A store with short leases, on `host` (this one by default). */
  const storeOn = (host?: string) => new FileMaterializationStore(storeDir, undefined, { ...LEASES, host });
  const hostTag = (host: string) => sha256Hex(host).slice(0, 8);
  let bootTag: string;
  beforeEach(async () => {
    const bootId = await fs.readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => '');
    bootTag = sha256Hex(bootId.trim()).slice(0, 8);
  });

  /**
   * A writer's holder file on the lock of `key`, as a process of `host` left it: its pid is this live
   * process's unless `pid` is given. Its mtime is `mtimeMs`. Resolves to its path.
   */
  async function writerFile(key: string, host: string, mtimeMs: number, pid = process.pid): Promise<string> {
    const file = path.join(lockDirOf(key), `w-000000000001-${hostTag(host)}-${bootTag}-${pid}-0123abcd`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '');
    await fs.utimes(file, new Date(mtimeMs), new Date(mtimeMs));
    return file;
  }

  const mtimeOf = async (file: string) => (await fs.stat(file)).mtimeMs;

  it("takes over another host's holder whose lease expired, whatever its pid", async () => {
    // With the default lease (a minute), a holder file left ten minutes ago by a host that died.
    const file = await writerFile(KEY_A, 'host-b', Date.now() - 600_000);
    expect(await settledWithin(take(KEY_A, 'shared'), 1000)).not.toBe('pending');
    expect(await readIfPresent(file)).toBeNull();
  });

  it("waits for another host's holder while its lease is fresh, and takes over once it expires", async () => {
    const since = Date.now();
    const file = await writerFile(KEY_A, 'host-b', since);
    const waiting = take(KEY_A, 'exclusive', undefined, storeOn());
    expect(await settledWithin(waiting, 150)).toBe('pending');
    expect(await settledWithin(waiting, 2000)).not.toBe('pending');
    expect(Date.now() - since).toBeGreaterThanOrEqual(LEASES.leaseExpiryMs);
    expect(await readIfPresent(file)).toBeNull();
    // The default lease of a minute is fresh still after 30 s.
    await (await waiting).release();
    await writerFile(KEY_A, 'host-b', Date.now() - 30_000);
    expect(await settledWithin(take(KEY_A, 'shared'), 300)).toBe('pending');
  });

  it('refreshes the lease of a held lock, so another host waits for it as long as it is held', async () => {
    const locks = await take(KEY_A, 'exclusive', undefined, storeOn());
    const since = Date.now();
    const [name] = await entries(lockDirOf(KEY_A));
    const waiting = take(KEY_A, 'shared', undefined, storeOn('host-b'));
    expect(await settledWithin(waiting, 1000)).toBe('pending'); // over three expiries
    expect(await mtimeOf(path.join(lockDirOf(KEY_A), name))).toBeGreaterThan(since + 500);
    await locks.release();
    expect(await settledWithin(waiting, 1000)).not.toBe('pending');
  });

  it('refreshes the lease of a writer while it waits', async () => {
    const first = await take(KEY_A, 'exclusive', undefined, storeOn());
    const writerB = take(KEY_A, 'exclusive', undefined, storeOn('host-b'));
    await new Promise((r) => setTimeout(r, 600)); // two expiries
    // A reader of this host lists the directory, and would drop host-b's writer file were it stale.
    const reader = take(KEY_A, 'shared', undefined, storeOn());
    expect(await settledWithin(reader, 200)).toBe('pending');
    const files = await entries(lockDirOf(KEY_A));
    expect(files.filter((n) => n.startsWith(`w-000000000002-${hostTag('host-b')}-`))).toHaveLength(1);
    await first.release();
    const second = await writerB; // writers first: host-b's, then the reader
    expect(await settledWithin(reader, 200)).toBe('pending');
    await second.release();
    await reader;
  });

  it('tries a refresh that failed again at the next tick', async () => {
    await take(KEY_A, 'exclusive', undefined, storeOn());
    const [name] = await entries(lockDirOf(KEY_A));
    const file = path.join(lockDirOf(KEY_A), name);
    const aside = path.join(root, 'aside');
    await fs.rename(file, aside); // its refreshes fail meanwhile
    await new Promise((r) => setTimeout(r, 200));
    await fs.utimes(aside, new Date(0), new Date(0));
    await fs.rename(aside, file);
    const back = Date.now();
    await new Promise((r) => setTimeout(r, 200));
    expect(await mtimeOf(file)).toBeGreaterThanOrEqual(back - 5);
  });

  it('never expires a live process of this host by age', async () => {
    const child = await holderProcess(KEY_A, 'exclusive');
    const [name] = await entries(lockDirOf(KEY_A));
    const old = new Date(Date.now() - 3_600_000);
    await fs.utimes(path.join(lockDirOf(KEY_A), name), old, old);
    const waiting = take(KEY_A, 'shared', undefined, storeOn());
    expect(await settledWithin(waiting, 700)).toBe('pending');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(await settledWithin(waiting, 1000)).not.toBe('pending');
  });

  it('judges a holder of this host whose pid cannot be checked by its lease', async () => {
    const file = await writerFile(KEY_A, os.hostname(), Date.now(), 0);
    const waiting = take(KEY_A, 'shared', undefined, storeOn());
    expect(await settledWithin(waiting, 150)).toBe('pending');
    expect(await settledWithin(waiting, 2000)).not.toBe('pending');
    expect(await readIfPresent(file)).toBeNull();
  });

  it('wants a lease that outlasts its refresh', () => {
    expect(() => new FileMaterializationStore(storeDir, undefined, { leaseRefreshMs: 300 })).not.toThrow();
    expect(
      () => new FileMaterializationStore(storeDir, undefined, { leaseRefreshMs: 300, leaseExpiryMs: 300 }),
    ).toThrow(RangeError);
    expect(() => new FileMaterializationStore(storeDir, undefined, { leaseRefreshMs: 0 })).toThrow(
      RangeError,
    );
  });
});
