// The materialization store of build DAGs on files, under `<data dir>/build`:
//
//   manifests/<materialization key>.json   the last committed manifest of one step's output
//   journals/<sha256(path key)>.json       a commit in progress on one output path (gone once it is done)
//   locks/<sha256(path key)>/              the holders of one path's reader/writer lock
//
// Path locks. Node has no flock, so a lock is a directory of holder files, each with a name of its own that
// is never used twice: `r-…` for a reader, `w-<ticket>-…` for a writer, `c-…` for a writer choosing its
// ticket (Lamport's bakery). The name carries the host, the boot, the pid and a random token. A reader
// creates its file and then lists: any writer file means it withdraws and retries. A writer creates its
// file and then lists: it holds the lock once no reader file, no choosing file and no writer file with a
// smaller ticket remains. Each side writes before it reads, so of two that arrive together at least one
// sees the other. A stale holder is removed by whoever lists it; since names are never reused, removing one
// can never remove a live holder that took its place.
//
// Which holders are stale. One of this host is judged by its process: stale when it is of an earlier boot
// of this host, or its pid is not alive for `kill -0`; a live pid is never expired by age, since a step may
// hold a lock for hours. The data directory may be on storage shared by several hosts (schedulers fail over
// between them), and no host can check another's pids: a holder file is also a lease. From its creation to
// its release the store that made it sets its mtime to the current time every `leaseRefreshMs` (10 s); a
// holder of another host, or of this host with a pid that cannot be checked, is stale once its mtime is more
// than `leaseExpiryMs` (60 s) older than the current time of the host that judges it. So a host that dies
// holding a lock blocks the others' runs of that path for a minute, not until it comes back. This assumes
// that the hosts' clocks agree to within the lease's slack, `leaseExpiryMs - leaseRefreshMs` (50 s): a
// judge whose clock runs ahead of the holder's by more than that sees a live holder as stale, and one whose
// clock runs behind waits that much longer for a dead one. NTP keeps clocks within far less. A holder that
// cannot refresh its files for longer than the expiry (its storage unreachable, its process stopped) may
// have them removed and its lock taken over meanwhile; it learns so at its commit, which checks first that
// each of its holder files is still there and within its lease, and refuses to commit otherwise.
//
// Commits. The journal, written before anything else changes, holds what is needed to put the previous
// output and manifest back; a crash at any point leaves it for the next exclusive holder of the path, which
// rolls the commit forward when it had finished (manifest and output both the proposed ones) and back
// otherwise.

import nodeFs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  MANIFEST_SCHEMA_VERSION,
  MaterializationRecoveryError,
  type FileSnapshot,
  type Materialization,
  type MaterializationCommit,
  type MaterializationStore,
  type PathLockMode,
  type PathLockRequest,
  type PathLocks,
} from '../core/build/types';
import { buildPathKey, snapshotFile } from './buildFiles';
import { onceReporter } from './corruptReporter';
import * as fs from './fileCalls';
import { fsPromises } from './fsPromises';
import {
  ensureDir,
  errorCode,
  errorMessage,
  readJsonFile,
  readTextFile,
  readdirOrEmpty,
  writeFileAtomic,
  type CorruptFileReport,
} from './fsutil';
import { nodeCrypto } from './nodeCrypto';
import { randomHex } from './randomHex';

const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 250;

/** How often a store sets the mtime of the holder files it made to the current time, by default. */
export const LEASE_REFRESH_MS = 10_000;
/** How old the mtime of a holder file of another host gets before the holder is stale, by default. */
export const LEASE_EXPIRY_MS = 60_000;

export interface FileMaterializationStoreOptions {
  /** How often the holder files of this store's locks get a fresh mtime; LEASE_REFRESH_MS by default. */
  leaseRefreshMs?: number;
  /**
   * How old the mtime of a holder file of another host (or with a pid that cannot be checked) may be before
   * it is stale; LEASE_EXPIRY_MS by default. Longer than `leaseRefreshMs`, with room for clock skew.
   */
  leaseExpiryMs?: number;
  /**
   * The name of this host in holder file names; os.hostname() by default. Hosts sharing a data directory
   * need names of their own: a holder of this name but of another boot is taken for one left by a reboot.
   */
  host?: string;
}

/** Manifest keys are file names here: the runner's are sha256 hex; anything that could leave the directory is refused. */
const MANIFEST_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export class FileMaterializationStore implements MaterializationStore {
  private readonly onCorrupt: (report: CorruptFileReport) => void;
  private readonly locking: Locking;

  /** `root`: the store's directory, `<data dir>/build`. */
  constructor(
    readonly root: string,
    onCorrupt?: (report: CorruptFileReport) => void,
    options: FileMaterializationStoreOptions = {},
  ) {
    this.onCorrupt = onceReporter(onCorrupt);
    const refreshMs = options.leaseRefreshMs ?? LEASE_REFRESH_MS;
    const expiryMs = options.leaseExpiryMs ?? LEASE_EXPIRY_MS;
    if (!(refreshMs > 0 && expiryMs > refreshMs))
      throw new RangeError(
        `lease refresh ${refreshMs} ms must be positive and shorter than expiry ${expiryMs} ms`,
      );
    this.locking = new Locking(options.host ?? os.hostname(), new LeaseKeeper(refreshMs), expiryMs);
  }

  /** A corrupt manifest reads as none: the step then runs, and its commit writes a good one. */
  async get(key: string): Promise<Materialization | null> {
    const file = this.manifestPath(key);
    const read = await readJsonFile<Materialization>(file, manifestProblem);
    if (read.kind === 'missing') return null;
    if (read.kind === 'corrupt') {
      this.onCorrupt({ path: read.path, error: `${read.error}; the step runs again` });
      return null;
    }
    return read.value.schema_version === MANIFEST_SCHEMA_VERSION ? read.value : null;
  }

  async acquire(requests: readonly PathLockRequest[], signal?: AbortSignal): Promise<PathLocks> {
    const wanted = mergeRequests(requests);
    for (;;) {
      if (signal?.aborted) throw cancelled('the build path locks');
      const held = new HeldPathLocks(this, wanted);
      let toRecover: string | null = null;
      try {
        for (const { key, mode } of wanted) {
          held.holders.push(await lockPath(this.locking, this.lockDir(key), key, mode, signal));
          if (mode === 'exclusive') await this.recover(key);
          else if (await this.hasJournal(key)) {
            toRecover = key;
            break;
          }
        }
      } catch (err) {
        await held.release();
        throw err;
      }
      if (toRecover === null) return held;
      // A reader must not see a half-made commit, and may not repair it under a shared lock: it takes the
      // path alone once, lets the recovery run, then starts over (in key order, so no deadlock).
      await held.release();
      const alone = await lockPath(this.locking, this.lockDir(toRecover), toRecover, 'exclusive', signal);
      try {
        await this.recover(toRecover);
      } finally {
        await alone.release();
      }
    }
  }

  async commit(locks: PathLocks, req: MaterializationCommit): Promise<void> {
    if (!(locks instanceof HeldPathLocks) || locks.store !== this || locks.released)
      throw new Error('build commit needs path locks held from this store');
    const finalPath = path.resolve(req.finalPath);
    const stagingPath = path.resolve(req.stagingPath);
    const finalKey = await buildPathKey(finalPath);
    if (!locks.holdsExclusively(finalKey))
      throw new Error(`build commit of ${finalPath} needs an exclusive lock on that path`);
    // Another host may have taken over a lock whose lease ran out: nothing is committed under it then.
    const lost = await locks.lost();
    if (lost !== null) throw new Error(`build commit of ${finalPath} refused: ${lost}`);
    if (path.dirname(stagingPath) !== path.dirname(finalPath))
      throw new Error(`staged output ${stagingPath} is not in the directory of ${finalPath}`);
    const staged = await snapshotFile(req.manifest.output.name, stagingPath);
    if (!sameContent(staged, req.manifest.output))
      throw new Error(`staged output ${stagingPath} does not match the manifest's output`);

    const manifestFile = this.manifestPath(req.manifest.materialization_key);
    const journal: CommitJournal = {
      final_path: finalPath,
      backup_path: path.join(
        path.dirname(finalPath),
        `.dagu-backup-${sha256Hex(`${finalPath}\0${req.manifest.commit_id}`)}`,
      ),
      materialization_key: req.manifest.materialization_key,
      previous_final: await snapshotIfPresent(finalPath),
      previous_manifest: await readTextIfPresent(manifestFile),
      proposed: req.manifest,
      preserve_manifest: req.preserveManifest,
    };
    const journalFile = this.journalPath(finalKey);
    // Left by a commit under these same locks whose rollback failed: overwriting it would lose the state it
    // can still restore. The next acquisition of the path recovers it first.
    if (await this.hasJournal(finalKey))
      throw new Error(`an interrupted commit of ${finalPath} awaits recovery; acquire the path again`);
    await ensureDir(path.dirname(journalFile));
    await writeFileAtomic(journalFile, `${JSON.stringify(journal)}\n`);

    if (journal.previous_final !== null) {
      try {
        await keepCopy(finalPath, journal.backup_path);
      } catch (err) {
        await removeFile(journalFile).catch(() => {});
        throw new Error(`keep the previous output of ${finalPath}: ${errorMessage(err)}`, { cause: err });
      }
    }
    try {
      await fs.rename(stagingPath, finalPath);
      if (!req.preserveManifest) {
        await ensureDir(path.dirname(manifestFile));
        await writeFileAtomic(manifestFile, `${JSON.stringify(req.manifest, null, 2)}\n`);
      }
    } catch (err) {
      await this.rollBack(journal, journalFile, err);
    }
    // Done: what is left is clean-up. A journal that outlives a crash here is rolled forward.
    await removeFile(journal.backup_path).catch(() => {});
    await removeFile(journalFile).catch(() => {});
  }

  /** Puts the previous output and manifest back after a failed commit, then throws `cause`. */
  private async rollBack(journal: CommitJournal, journalFile: string, cause: unknown): Promise<never> {
    const failed = await this.restorePrevious(journal).then(
      () => null,
      (err: unknown) => err,
    );
    // The commit's own failure is the cause either way; when undoing it failed as well, the journal stays
    // for the next exclusive holder of the path to try again.
    if (failed !== null)
      throw new Error(`${errorMessage(cause)}; rolling back failed too: ${errorMessage(failed)}`, { cause });
    await removeFile(journalFile).catch(() => {});
    throw cause;
  }

  /** Finishes or undoes the interrupted commit on the path `key`, if there is one. Needs the path exclusively. */
  private async recover(key: string): Promise<void> {
    const journalFile = this.journalPath(key);
    const read = await readJsonFile<CommitJournal>(journalFile, journalProblem);
    if (read.kind === 'missing') return;
    if (read.kind === 'corrupt') {
      // Written atomically, so this is damage, and nothing in it can be trusted: the path goes on without
      // it. The outputs stay consistent with their manifests either way (reuse compares the two).
      await removeFile(journalFile);
      throw new MaterializationRecoveryError(`unreadable commit journal ${journalFile}: ${read.error}`);
    }
    const journal = read.value;
    if (await this.finished(journal)) {
      await removeFile(journal.backup_path).catch(() => {});
      await removeFile(journalFile);
      return;
    }
    try {
      await this.restorePrevious(journal);
    } catch (err) {
      if (err instanceof MaterializationRecoveryError) {
        // Someone else's file is at the path now; trying again would never succeed. The backup, if any,
        // stays beside it for a person to look at.
        await removeFile(journalFile);
        throw err;
      }
      throw new MaterializationRecoveryError(
        `recover the commit of ${journal.final_path}: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    await removeFile(journalFile);
  }

  /** Whether the journal's commit got as far as its manifest and its output is still the proposed one. */
  private async finished(journal: CommitJournal): Promise<boolean> {
    const current = await readTextIfPresent(this.manifestPath(journal.materialization_key));
    let manifestDone: boolean;
    if (journal.preserve_manifest) manifestDone = current === journal.previous_manifest;
    else manifestDone = current !== null && commitIdOf(current) === journal.proposed.commit_id;
    return manifestDone && (await contentMatches(journal.final_path, journal.proposed.output));
  }

  /** The output and manifest as they were before the journal's commit. */
  private async restorePrevious(journal: CommitJournal): Promise<void> {
    const { final_path: finalPath, previous_final: previous, proposed } = journal;
    const present = await fsPromises()
      .lstat(finalPath)
      .then(
        () => true,
        (err: unknown) => {
          if (errorCode(err) === 'ENOENT') return false;
          throw err;
        },
      );
    if (previous !== null) {
      if (present && (await contentMatches(finalPath, previous))) {
        await removeFile(journal.backup_path).catch(() => {}); // the commit never replaced it
      } else if (!present || (await contentMatches(finalPath, proposed.output))) {
        if (!(await contentMatches(journal.backup_path, previous)))
          throw new MaterializationRecoveryError(
            `the backup of the previous output of ${finalPath} is missing or changed: ${journal.backup_path}`,
          );
        await fs.rename(journal.backup_path, finalPath);
      } else {
        throw unidentified(finalPath);
      }
    } else if (present) {
      if (!(await contentMatches(finalPath, proposed.output))) throw unidentified(finalPath);
      await removeFile(finalPath);
    }
    const manifestFile = this.manifestPath(journal.materialization_key);
    if (journal.previous_manifest !== null) {
      await ensureDir(path.dirname(manifestFile));
      await writeFileAtomic(manifestFile, journal.previous_manifest);
    } else {
      await removeFile(manifestFile);
    }
  }

  private async hasJournal(key: string): Promise<boolean> {
    try {
      await fs.stat(this.journalPath(key));
      return true;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return false;
      throw err;
    }
  }

  private manifestPath(key: string): string {
    if (!MANIFEST_KEY.test(key)) throw new Error(`invalid materialization key ${JSON.stringify(key)}`);
    return path.join(this.root, 'manifests', `${key}.json`);
  }

  private journalPath(pathKey: string): string {
    return path.join(this.root, 'journals', `${sha256Hex(pathKey)}.json`);
  }

  private lockDir(pathKey: string): string {
    return path.join(this.root, 'locks', sha256Hex(pathKey));
  }
}

/** What a commit writes before it changes anything: enough to undo it or to see that it finished. */
interface CommitJournal {
  final_path: string;
  /** Beside the final output: a hard link to (or a copy of) the previous output, while the commit runs. */
  backup_path: string;
  materialization_key: string;
  /** The output before the commit; null when there was none. */
  previous_final: FileSnapshot | null;
  /** The manifest file's text before the commit, byte for byte; null when there was none. */
  previous_manifest: string | null;
  proposed: Materialization;
  preserve_manifest: boolean;
}

function unidentified(finalPath: string): MaterializationRecoveryError {
  return new MaterializationRecoveryError(
    `${finalPath}: current output cannot be identified as the previous or proposed materialization`,
  );
}

function cancelled(what: string): Error {
  return new Error(`wait for ${what} cancelled`);
}

// ---- the path locks ----

/** The locks of one acquire call, in the order they were taken. */
class HeldPathLocks implements PathLocks {
  readonly holders: LockHolder[] = [];
  released = false;

  constructor(
    readonly store: FileMaterializationStore,
    readonly requests: readonly PathLockRequest[],
  ) {}

  holdsExclusively(key: string): boolean {
    return this.requests.some((r) => r.key === key && r.mode === 'exclusive');
  }

  /** Null while every lock is still held; else why one of them was lost, naming its path. */
  async lost(): Promise<string | null> {
    for (const holder of this.holders) {
      const why = await holder.lost();
      if (why !== null) return why;
    }
    return null;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    for (const holder of [...this.holders].reverse()) await holder.release();
  }
}

/** One holder file in one lock directory. */
class LockHolder {
  private released = false;

  constructor(
    private readonly locking: Locking,
    private readonly dir: string,
    private readonly name: string,
    /** The path the lock is on, for messages. */
    private readonly key: string,
  ) {}

  /**
   * Null while the holder file is there and its lease has not run out; else why the lock is lost. A holder
   * whose refreshes stopped for longer than the expiry (its process stopped, its storage unreachable) may
   * have been judged stale by another host, removed, and its lock taken.
   */
  async lost(): Promise<string | null> {
    let mtimeMs: number;
    try {
      mtimeMs = (await fs.stat(path.join(this.dir, this.name))).mtimeMs;
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
      return `the lock on ${this.key} was lost: its holder file was removed as stale (its lease ran out)`;
    }
    const age = Date.now() - mtimeMs;
    if (age > this.locking.expiryMs)
      return `the lock on ${this.key} was lost: its lease was last renewed ${Math.round(age / 1000)} s ago, past its ${Math.round(this.locking.expiryMs / 1000)} s expiry`;
    return null;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await removeOwnHolder(this.locking, this.dir, this.name);
    // An empty lock directory goes too, or one would stay for every path ever built. Whoever needs it
    // next makes it again (createHolder retries when it vanished between its mkdir and its create).
    await fs.rmdir(this.dir).catch(() => {});
  }
}

/** Duplicate keys merged (exclusive wins), empty keys dropped, sorted: every acquirer locks in one order. */
function mergeRequests(requests: readonly PathLockRequest[]): PathLockRequest[] {
  const modes = new Map<string, PathLockMode>();
  for (const { key, mode } of requests) {
    if (key === '') continue;
    if (mode === 'exclusive' || !modes.has(key)) modes.set(key, mode);
  }
  return [...modes.keys()].sort().map((key) => ({ key, mode: modes.get(key) as PathLockMode }));
}

/** Takes the lock of `dir` (the path `key`, for messages) in `mode`, waiting for other holders. */
async function lockPath(
  locking: Locking,
  dir: string,
  key: string,
  mode: PathLockMode,
  signal: AbortSignal | undefined,
): Promise<LockHolder> {
  return mode === 'exclusive'
    ? lockExclusive(locking, dir, key, signal)
    : lockShared(locking, dir, key, signal);
}

async function lockExclusive(
  locking: Locking,
  dir: string,
  key: string,
  signal: AbortSignal | undefined,
): Promise<LockHolder> {
  const me = await locking.origin();
  // The ticket: one more than any writer's in the directory, chosen under a `c-` file so that a writer
  // comparing tickets meanwhile waits for this one rather than missing it.
  const choosing = await createHolder(locking, dir, `c-${me.tag}-${newToken()}`);
  let mine: string;
  try {
    const ticket = Math.max(0, ...(await liveHolders(locking, dir)).map((h) => h.ticket)) + 1;
    mine = await createHolder(locking, dir, `w-${String(ticket).padStart(12, '0')}-${me.tag}-${newToken()}`);
  } finally {
    await removeOwnHolder(locking, dir, choosing);
  }
  const own = parseHolder(mine) as Holder;
  try {
    for (let wait = POLL_FIRST_MS; ; wait = nextWait(wait)) {
      const blocked = (await liveHolders(locking, dir)).some(
        (h) => h.kind === 'r' || h.kind === 'c' || (h.kind === 'w' && before(h, own)),
      );
      if (!blocked) return new LockHolder(locking, dir, mine, key);
      await pause(wait, signal, key);
    }
  } catch (err) {
    await new LockHolder(locking, dir, mine, key).release();
    throw err;
  }
}

async function lockShared(
  locking: Locking,
  dir: string,
  key: string,
  signal: AbortSignal | undefined,
): Promise<LockHolder> {
  const me = await locking.origin();
  for (let wait = POLL_FIRST_MS; ; wait = nextWait(wait)) {
    const mine = await createHolder(locking, dir, `r-${me.tag}-${newToken()}`);
    const writers = (await liveHolders(locking, dir)).some((h) => h.kind === 'w');
    if (!writers) return new LockHolder(locking, dir, mine, key);
    // Withdraw while a writer holds or waits: holding on would leave that writer waiting for this reader
    // while this reader waits for it. Waiting writers thus go first.
    await new LockHolder(locking, dir, mine, key).release();
    await pause(wait, signal, key);
  }
}

function nextWait(ms: number): number {
  return Math.min(POLL_MAX_MS, Math.round(ms * 1.5));
}

async function pause(ms: number, signal: AbortSignal | undefined, key: string): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw cancelled(`the lock on build path ${key}`);
  }
  if (signal?.aborted) throw cancelled(`the lock on build path ${key}`);
}

interface Holder {
  kind: 'r' | 'w' | 'c';
  /** A writer's place in the queue; 0 for the others. */
  ticket: number;
  host: string;
  boot: string;
  pid: number;
  token: string;
  name: string;
}

const HOLDER_NAME =
  /^([rc])-()([0-9a-f]{8})-([0-9a-f]{8})-(\d+)-([0-9a-f]+)$|^(w)-(\d{12})-([0-9a-f]{8})-([0-9a-f]{8})-(\d+)-([0-9a-f]+)$/;

function parseHolder(name: string): Holder | null {
  const m = HOLDER_NAME.exec(name);
  if (m === null) return null;
  const [kind, ticket, host, boot, pid, token] = m[1] !== undefined ? m.slice(1, 7) : m.slice(7, 13);
  return {
    kind: kind as Holder['kind'],
    ticket: ticket === '' ? 0 : Number(ticket),
    host,
    boot,
    pid: Number(pid),
    token,
    name,
  };
}

/** Bakery order: the smaller ticket first, the token deciding between two writers that drew the same one. */
function before(a: Holder, b: Holder): boolean {
  return a.ticket < b.ticket || (a.ticket === b.ticket && a.token < b.token);
}

/** The holders of `dir` other than stale ones, which are removed on the way. */
async function liveHolders(locking: Locking, dir: string): Promise<Holder[]> {
  const me = await locking.origin();
  const live: Holder[] = [];
  for (const name of await readdirOrEmpty(dir)) {
    const holder = parseHolder(name);
    if (holder === null) continue; // a temp file or a stranger: not a holder
    const state = await holderState(locking, me, dir, holder);
    if (state === 'live') live.push(holder);
    else if (state === 'stale') await removeHolder(dir, name);
  }
  return live;
}

/** Whether `holder` still holds or waits ('live'), is left by a dead one ('stale'), or is gone already. */
async function holderState(
  locking: Locking,
  me: Origin,
  dir: string,
  holder: Holder,
): Promise<'live' | 'stale' | 'gone'> {
  if (holder.host === me.host) {
    if (holder.boot !== me.boot) return 'stale'; // left by a process of an earlier boot
    // A pid of our own is alive only with a token we made: otherwise an earlier process had our pid.
    if (holder.pid === process.pid) return ownTokens.has(holder.token) ? 'live' : 'stale';
    const pid = pidState(holder.pid);
    if (pid !== 'unknown') return pid === 'alive' ? 'live' : 'stale';
  }
  // Another host's holder, or one whose pid says nothing: judged by the age of its lease.
  let mtimeMs: number;
  try {
    mtimeMs = (await fs.stat(path.join(dir, holder.name))).mtimeMs;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return 'gone'; // released, or removed by another judge, meanwhile
    throw err;
  }
  // A negative age (the holder's clock ahead of ours) is a fresh lease.
  return Date.now() - mtimeMs > locking.expiryMs ? 'stale' : 'live';
}

/** What `kill -0` says of `pid`; 'unknown' when it cannot be asked (not a process id, or an odd error). */
function pidState(pid: number): 'alive' | 'dead' | 'unknown' {
  // 0 and negative ids name process groups, and kill(0) always succeeds: no holder has those.
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid > 0x7fffffff) return 'unknown';
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (err) {
    const code = errorCode(err);
    if (code === 'EPERM') return 'alive'; // another user's process
    return code === 'ESRCH' ? 'dead' : 'unknown';
  }
}

/** The tokens of this process's holder files that exist now. */
const ownTokens = new Set<string>();

function newToken(): string {
  return randomHex(8);
}

/**
 * Creates an empty holder file named `name` in `dir` and returns the name. Its name is unique, so plain
 * O_EXCL suffices, and it needs no fsync: a crash that could lose it also ends its holder.
 */
async function createHolder(locking: Locking, dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  for (let attempt = 0; ; attempt++) {
    await ensureDir(dir);
    let fd: number;
    try {
      fd = await fs.open(file, 'wx');
    } catch (err) {
      // The directory was removed by a releasing holder between the mkdir and the create.
      if (errorCode(err) !== 'ENOENT' || attempt >= 10) throw err;
      continue;
    }
    ownTokens.add(name.slice(name.lastIndexOf('-') + 1));
    locking.leases.add(file);
    try {
      // The lease starts on this host's clock, as its refreshes go on (on shared storage the server may
      // have set the file's times by its own). Should this fail, the first refresh does it.
      await touch(fd).catch(() => {});
      await fs.close(fd);
    } catch (err) {
      await removeOwnHolder(locking, dir, name).catch(() => {});
      throw err;
    }
    return name;
  }
}

/** Removes a holder file of this store's, and stops refreshing its lease. */
async function removeOwnHolder(locking: Locking, dir: string, name: string): Promise<void> {
  try {
    await removeHolder(dir, name);
  } finally {
    locking.leases.delete(path.join(dir, name));
  }
}

async function removeHolder(dir: string, name: string): Promise<void> {
  await removeFile(path.join(dir, name));
  ownTokens.delete(name.slice(name.lastIndexOf('-') + 1));
}

/** Sets the access and modification times of a file (by descriptor or path) to now. Never blocks. */
function touch(file: number | string): Promise<void> {
  const now = new Date();
  return new Promise((resolve, reject) => {
    const done = (err: NodeJS.ErrnoException | null) => (err ? reject(err) : resolve());
    if (typeof file === 'number') nodeFs.futimes(file, now, now, done);
    else nodeFs.utimes(file, now, now, done);
  });
}

/**
 * The holder files a store made and has not removed, their leases refreshed every `everyMs` by one timer
 * that runs while there are any. The timer does not keep the process alive; a refresh that fails is tried
 * again at the next tick, silently (one whose file was removed meanwhile fails for good, harmlessly).
 */
class LeaseKeeper {
  private readonly files = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing = false;

  constructor(readonly everyMs: number) {}

  add(file: string): void {
    this.files.add(file);
    if (this.timer === null && !this.refreshing) this.schedule();
  }

  delete(file: string): void {
    this.files.delete(file);
    if (this.files.size === 0 && this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.refresh(), this.everyMs);
    this.timer.unref();
  }

  private async refresh(): Promise<void> {
    this.timer = null;
    this.refreshing = true;
    try {
      await Promise.all([...this.files].map((file) => touch(file).catch(() => {})));
    } finally {
      this.refreshing = false;
      if (this.files.size > 0 && this.timer === null) this.schedule();
    }
  }
}

/** What the path locks of one store share: the host it names, the leases of its holder files, their expiry. */
class Locking {
  private me: Promise<Origin> | null = null;

  constructor(
    private readonly hostName: string,
    readonly leases: LeaseKeeper,
    readonly expiryMs: number,
  ) {}

  origin(): Promise<Origin> {
    this.me ??= bootTag().then((boot) => {
      const host = sha256Hex(this.hostName).slice(0, 8);
      return { host, boot, tag: `${host}-${boot}-${process.pid}` };
    });
    return this.me;
  }
}

/** Who holder files say made them: the host and this boot, as short tags. */
interface Origin {
  host: string;
  boot: string;
  /** `<host>-<boot>-<pid>`, the middle of this process's holder names. */
  tag: string;
}

let boot: Promise<string> | null = null;

function bootTag(): Promise<string> {
  boot ??= (async () => {
    // Linux's boot id; elsewhere a constant, and a holder left before a restart then counts as alive
    // while its pid belongs to a live process.
    const bootId = await readTextFile('/proc/sys/kernel/random/boot_id').catch(() => '');
    return sha256Hex(bootId.trim()).slice(0, 8);
  })();
  return boot;
}

// ---- files ----

function sha256Hex(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

function sameContent(a: FileSnapshot, b: FileSnapshot): boolean {
  return a.size === b.size && a.digest === b.digest;
}

/** Whether `file` is a regular file with `expected`'s content; false when it is missing or unreadable. */
async function contentMatches(file: string, expected: FileSnapshot): Promise<boolean> {
  try {
    return sameContent(await snapshotFile(expected.name, file), expected);
  } catch {
    return false;
  }
}

async function snapshotIfPresent(file: string): Promise<FileSnapshot | null> {
  try {
    return await snapshotFile('', file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

async function readTextIfPresent(file: string): Promise<string | null> {
  try {
    return await readTextFile(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

/** Removes a file; one that is already gone (or whose directory is not one) is fine. */
async function removeFile(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if (errorCode(err) !== 'ENOENT' && errorCode(err) !== 'ENOTDIR') throw err;
  }
}

/**
 * Makes `backup` a second name of `file`, or a copy where hard links are not allowed. A leftover of the same
 * name can only be of this very commit (the name has its commit id), so it is replaced.
 */
async function keepCopy(file: string, backup: string): Promise<void> {
  await removeFile(backup);
  try {
    await fs.link(file, backup);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') throw err;
    await fsPromises().copyFile(file, backup, fsPromises().constants.COPYFILE_EXCL);
  }
}

function commitIdOf(manifestText: string): string | null {
  try {
    const value = JSON.parse(manifestText) as unknown;
    return isRecord(value) && typeof value.commit_id === 'string' ? value.commit_id : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSnapshot(value: unknown): value is FileSnapshot {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.path === 'string' &&
    typeof value.size === 'number' &&
    typeof value.digest === 'string'
  );
}

/** Why a parsed manifest cannot be used, or null. Another schema version is not corrupt: get() skips it. */
function manifestProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'not a JSON object';
  if (typeof value.schema_version !== 'number') return 'no schema_version';
  if (value.schema_version !== MANIFEST_SCHEMA_VERSION) return null;
  const strings = ['materialization_key', 'commit_id', 'dag_name', 'step_id', 'recipe_digest', 'fingerprint'];
  for (const field of strings) if (typeof value[field] !== 'string') return `no ${field}`;
  if (!Array.isArray(value.inputs) || !value.inputs.every(isSnapshot)) return 'invalid inputs';
  if (!isSnapshot(value.output)) return 'invalid output';
  const producer = value.producer_run;
  if (!isRecord(producer) || typeof producer.dag_name !== 'string' || typeof producer.run_id !== 'string')
    return 'invalid producer_run';
  if (typeof value.producer_attempt !== 'number') return 'no producer_attempt';
  if (typeof value.completed_at !== 'string') return 'no completed_at';
  return null;
}

function journalProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'not a JSON object';
  for (const field of ['final_path', 'backup_path', 'materialization_key'])
    if (typeof value[field] !== 'string') return `no ${field}`;
  if (value.previous_final !== null && !isSnapshot(value.previous_final)) return 'invalid previous_final';
  if (value.previous_manifest !== null && typeof value.previous_manifest !== 'string')
    return 'invalid previous_manifest';
  if (
    !isRecord(value.proposed) ||
    typeof value.proposed.commit_id !== 'string' ||
    !isSnapshot(value.proposed.output)
  )
    return 'invalid proposed manifest';
  if (typeof value.preserve_manifest !== 'boolean') return 'no preserve_manifest';
  return null;
}
