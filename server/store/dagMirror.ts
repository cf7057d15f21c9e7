// A host's local copy of the DAG definitions: a directory of `<name>.yaml` files that every reader of the DAGs
// directory (the scheduler, the console, run processes, `dagu start etl`) reads as it always has, brought in
// step with the store (PostgreSQL, the truth) at start, then by polling and, sooner, on a wake-up. Files are
// replaced atomically and removed when their DAG is gone; the directory belongs to the mirror, so a DAG file
// put there by hand is removed too (and one edited by hand is put back). What a pass found is kept in a
// hidden state file, so that a one-shot command (`dagu start etl`, a run process) brings the directory in
// step with one query when nothing changed since another process of the host compared it.

import path from 'node:path';
import { isValidDagName } from '../core/names';
import type { Clock, Logger, TimerHandle, Timers } from '../core/ports';
import type { DagDefinitions, DagEntry } from './dagDefinitions';
import { dagVersion } from './dagFiles';
import * as fs from './fileCalls';
import {
  ensureDir,
  errorCode,
  errorMessage,
  readJsonFile,
  readTextFile,
  readdirOrEmpty,
  writeFileAtomic,
} from './fsutil';

/** What one pass changed in the directory. */
export interface MirrorPass {
  /** DAGs whose file was written (new or changed), by name. */
  written: string[];
  /** Files removed (DAGs gone, or a file name that is not the DAG's own), by file name. */
  removed: string[];
  /** Whether the pass compared the directory with the store (false: the revision had not moved). */
  compared: boolean;
}

export interface DagMirrorOptions {
  store: Pick<DagDefinitions, 'list' | 'getMany' | 'revision'>;
  /** The mirror directory: local disk, owned by the mirror. */
  dir: string;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** How often the store's revision is read. Default 5 s. */
  pollMs?: number;
  /**
   * How often the directory is compared with the store even when the revision has not moved, to put back a
   * file changed or removed by hand. Default 60 s.
   */
  recheckMs?: number;
}

const DAG_FILE = /^(.+)\.(yaml|yml)$/i;

/**
 * Where a host keeps its mirror: `<paths.data_dir>/dags-mirror`, local scratch on the PostgreSQL backend, and
 * never the configured DAGs directory, whose files the mirror would otherwise remove.
 */
export function dagMirrorDir(paths: { data_dir: string }): string {
  return path.join(paths.data_dir, 'dags-mirror');
}

/** The state file: hidden, so no reader of the directory takes it for a DAG. */
export const MIRROR_STATE_FILE = '.dagu-mirror.json';

/** What the state file holds: the revision the files were last compared at, and what each file was then. */
interface MirrorState {
  revision: string;
  files: Record<string, Seen>;
}

/** What the mirror last saw of a file: its version, valid while the file's size, mtime and inode are the same. */
interface Seen {
  size: number;
  mtimeMs: number;
  ino: number;
  version: string;
}

export class DagMirror {
  readonly dir: string;
  private readonly log: Logger;
  private readonly pollMs: number;
  private readonly recheckMs: number;
  private lastRevision: string | null = null;
  private lastComparedMono = -Infinity;
  private readonly seen = new Map<string, Seen>();
  private running: Promise<MirrorPass> | null = null;
  /** A pass asked for while one runs: it runs after, so that it sees what its caller wrote. */
  private queued: Promise<MirrorPass> | null = null;
  private timer: TimerHandle | null = null;
  private started = false;
  private stopped = false;
  private failures = 0;
  private stateLoaded = false;

  constructor(private readonly o: DagMirrorOptions) {
    this.dir = path.resolve(o.dir);
    this.log = o.logger.child({ component: 'dag-mirror' });
    this.pollMs = o.pollMs ?? 5_000;
    this.recheckMs = o.recheckMs ?? 60_000;
  }

  /**
   * The first pass, awaited (a process starts with the DAGs of the store, or fails to start with the reason),
   * then a pass every pollMs until `stop()`.
   */
  async start(): Promise<MirrorPass> {
    this.started = true;
    const pass = await this.sync({ force: true });
    this.schedule(this.pollMs);
    return pass;
  }

  /** A wake-up (a NOTIFY, a reconnection): a pass now, without waiting for the poll. Never throws. */
  wake(): void {
    if (this.stopped) return;
    this.sync({ force: true }).catch(() => undefined);
  }

  /**
   * A pass that starts after this call, resolved when the directory holds what the store held then: a
   * writer calls it to see its own write. Throws when the store or the directory fails.
   */
  sync(opts: { force?: boolean } = {}): Promise<MirrorPass> {
    if (this.running === null) return this.begin(opts.force === true);
    // Coalesce: every caller that arrives during a pass shares the one pass that follows it.
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.begin(true);
      });
    return this.queued;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.o.timers.clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([this.running, this.queued]);
  }

  private begin(force: boolean): Promise<MirrorPass> {
    const pass = this.pass(force).finally(() => {
      if (this.running === pass) this.running = null;
    });
    this.running = pass;
    pass.then(
      () => this.recovered(),
      (err: unknown) => this.failed(err),
    );
    return pass;
  }

  /** A poll every pollMs, whatever the passes take: a slow one makes the next poll share the pass after it. */
  private schedule(ms: number): void {
    if (this.stopped || !this.started || this.timer) return;
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = null;
      this.schedule(this.pollMs);
      this.sync().catch(() => undefined);
    }, ms);
  }

  private async pass(force: boolean): Promise<MirrorPass> {
    if (!this.stateLoaded) await this.loadState();
    const revision = await this.o.store.revision();
    const due = this.o.clock.monoMs() - this.lastComparedMono >= this.recheckMs;
    if (!force && !due && revision === this.lastRevision)
      return { written: [], removed: [], compared: false };
    // The revision is read before the list: a write landing in between is in the list, and moves the
    // revision past the one kept here, so the next poll compares again; no write can be missed.
    const wanted = await this.o.store.list();
    const pass = await this.reconcile(wanted);
    this.lastRevision = revision;
    this.lastComparedMono = this.o.clock.monoMs();
    await this.saveState(revision);
    if (pass.written.length + pass.removed.length > 0) {
      const fields = { dir: this.dir, written: pass.written.length, removed: pass.removed.length, revision };
      // A one-shot command's pass (before it reads a DAG) is no news to whoever runs the command.
      if (this.started) this.log.info('Brought the local DAG files in step with the database', fields);
      else this.log.debug('Brought the local DAG files in step before reading a DAG', fields);
    }
    return pass;
  }

  private async reconcile(listed: DagEntry[]): Promise<MirrorPass> {
    const wanted = listed.filter((e) => this.usable(e));
    await ensureDir(this.dir);
    const local = await this.scan();
    const wantedFiles = new Map(wanted.map((e) => [e.fileName, e]));
    const stale = wanted.filter((e) => local.get(e.fileName) !== e.version).map((e) => e.name);
    const written: string[] = [];
    for (const def of await this.o.store.getMany(stale)) {
      const file = path.join(this.dir, def.fileName);
      // Not durable: a mirror lost in a crash is written again by the next pass, which compares hashes.
      await writeFileAtomic(file, def.yaml, { durable: false });
      await this.remember(def.fileName, def.version);
      written.push(def.name);
    }
    const removed: string[] = [];
    for (const fileName of local.keys()) {
      if (wantedFiles.has(fileName)) continue;
      try {
        await fs.unlink(path.join(this.dir, fileName));
      } catch (err) {
        if (errorCode(err) !== 'ENOENT') throw err;
      }
      this.seen.delete(fileName);
      removed.push(fileName);
    }
    return { written, removed, compared: true };
  }

  /** The DAG files in the directory with their versions; a file that vanishes meanwhile is left out. */
  private async scan(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const names = (await readdirOrEmpty(this.dir)).filter((n) => !n.startsWith('.') && DAG_FILE.test(n));
    for (const fileName of names) {
      const version = await this.versionOf(fileName);
      // A file whose stem is no DAG name cannot be one of the store's: it is compared (and removed) all the same.
      if (version !== null) out.set(fileName, isValidDagName(DAG_FILE.exec(fileName)![1]) ? version : '');
    }
    return out;
  }

  private async versionOf(fileName: string): Promise<string | null> {
    const file = path.join(this.dir, fileName);
    try {
      const st = await fs.stat(file);
      if (!st.isFile()) return null;
      const known = this.seen.get(fileName);
      if (known && known.size === st.size && known.mtimeMs === st.mtimeMs && known.ino === st.ino) {
        return known.version;
      }
      const version = dagVersion(await readTextFile(file));
      this.seen.set(fileName, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, version });
      return version;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
  }

  /**
   * What another process of this host (or this one, earlier) last compared, taken as just compared: a pass
   * that finds the same revision then writes nothing. A missing or unreadable state only costs a full compare.
   */
  private async loadState(): Promise<void> {
    this.stateLoaded = true;
    const r = await readJsonFile<MirrorState>(path.join(this.dir, MIRROR_STATE_FILE), (v) =>
      isMirrorState(v) ? null : 'not a DAG mirror state',
    ).catch(() => null);
    if (r?.kind !== 'ok') return;
    this.lastRevision = r.value.revision;
    this.lastComparedMono = this.o.clock.monoMs();
    for (const [fileName, seen] of Object.entries(r.value.files)) this.seen.set(fileName, seen);
  }

  /** Not durable: a state lost in a crash only costs the next process a full compare. */
  private async saveState(revision: string): Promise<void> {
    const state: MirrorState = { revision, files: Object.fromEntries(this.seen) };
    await writeFileAtomic(path.join(this.dir, MIRROR_STATE_FILE), JSON.stringify(state), { durable: false });
  }

  private async remember(fileName: string, version: string): Promise<void> {
    const st = await fs.stat(path.join(this.dir, fileName));
    this.seen.set(fileName, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, version });
  }

  /** A listed DAG this host can write: its name and file name cannot lead outside the directory. */
  private usable(e: DagEntry): boolean {
    if (isValidDagName(e.name) && (e.fileName === `${e.name}.yaml` || e.fileName === `${e.name}.yml`))
      return true;
    this.log.warn('Skipping a DAG whose name cannot be a file name', { dag: e.name, file: e.fileName });
    return false;
  }

  private failed(err: unknown): void {
    this.failures++;
    // The first failure and every tenth: a database that is down for an hour does not fill the log.
    if (this.failures === 1 || this.failures % 10 === 0) {
      this.log.warn('Cannot bring the local DAG files in step with the database; keeping the last copy', {
        dir: this.dir,
        error: errorMessage(err),
        failures: this.failures,
      });
    }
  }

  private recovered(): void {
    if (this.failures > 0)
      this.log.info('DAG files in step with the database again', { failures: this.failures });
    this.failures = 0;
  }
}

function isMirrorState(v: unknown): v is MirrorState {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Partial<MirrorState>;
  return typeof o.revision === 'string' && typeof o.files === 'object' && o.files !== null;
}
