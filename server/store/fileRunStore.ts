// RunStore on the shared data directory. Layout (all names validated before any path is built):
//
//   data/runs/<run_id>/                          mkdir'd exclusively: the at-most-once claim of the run ID
//   data/runs/<run_id>/attempts/<n>/status.json  the attempt's status, replaced atomically (temp+fsync+rename)
//   data/runs/<run_id>/attempts/<n>/claim        created exclusively by the process that executes the attempt
//   data/runs/<run_id>/attempts/<n>/heartbeat    the run process's last heartbeat, ms as text, replaced atomically
//   data/index/all/<YYYYMMDD>/<HH>/<MMSS>/<created_ms13>~<run_id>~<dag>   empty markers (see runIndex.ts)
//   data/index/dag/<dag>/<YYYYMMDD>/<HH>/<MMSS>/<created_ms13>~<run_id>
//   data/active/<run_id>.json                    {run_id, dag_name, queue} while queued or running
//   data/deleted/<run_id>/                       a run being deleted (history retention), see deleteRun
//   data/dag-run-work/<dag>/<run_id>/            the run's work directory (made by the runner)
//   data/runs/<run_id>/artifacts/                the run's artifacts (DAG_RUN_ARTIFACTS_DIR, made by the runner)
//   data/runs/<run_id>/artifacts-dir             the folder of its artifacts when its DAG set artifacts.dir
//
//   data/runs/<run_id>/attempts/<n>/final-status-unwritten~<state>~<code>   empty: see recordUnwrittenFinalStatus
//
// createRun writes the run directory (the claim), then the index markers, then attempt 1's directory, the
// active marker (of a queued or running run) and last the status. A creator that dies midway leaves a run the
// list shows (hidden while young, as corrupt with the reason once abandoned), never an invisible one, except
// one that died between its directory and its list entries: that directory is empty, and the active
// scheduler removes it once abandoned (removeAbandonedCreations). A run whose status says queued or running
// always has the marker the reaper goes by. A write that fails rolls
// the creation back. A run (or attempt) directory without a status reads as `missing` while it is young
// (being created) and as `corrupt` afterwards (its creator crashed); nothing here deletes it later.

import path from 'node:path';
import { assertDagName, assertRunId, isValidRunId } from '../core/names';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { MINUTE } from '../core/units';
import { AttemptConflictError, RunCreateError, RunNotFoundError } from './errors';
import { onceReporter } from './corruptReporter';
import { ARTIFACTS_DIR_FILE, recordedArtifactsDir } from './fileArtifactStore';
import * as fs from './fileCalls';
import type { CorruptFileReport, ReadJsonResult } from './fsutil';
import {
  createFileExclusive,
  ensureDir,
  errorCode,
  mkdirExclusive,
  readJsonFile,
  readTextFile,
  readdirOrEmpty,
  writeFileAtomic,
} from './fsutil';
import { addIndexMarker, newestIndexEntries, removeIndexMarker, type RunIndexEntry } from './runIndex';
import {
  clampLimit,
  corruptRunSummary,
  createdMsOf,
  matchesRecord,
  parseCursor,
  summarizeRun,
  upperKey,
} from './runList';
import { assertStatusNames, isAttemptNumber, statusShapeError } from './runValidation';
import type {
  CreateRunResult,
  DeleteRunResult,
  HistoryEntry,
  ReadStatusResult,
  RunListPage,
  RunListQuery,
  RunStore,
  WriteStatusOptions,
  RunSummary,
  UnwrittenFinalStatus,
} from './types';
import { parseUnwrittenNoteName, unwrittenNoteName } from './unwrittenFinalStatus';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

/** Options of FileRunStore. */
export interface FileRunStoreOptions {
  /** `DAGU_HOME/data`. */
  dataDir: string;
  /** `DAGU_HOME/logs`. */
  logDir: string;
  /** Told once about each corrupt file a read skipped (active markers, heartbeats); for the log. */
  onCorrupt?: (report: CorruptFileReport) => void;
  /** Runs one status-filtered `listRuns` call reads at most before it returns a short page (default 2000). */
  maxScannedPerPage?: number;
}

type ActiveRun = { run_id: string; dag_name: string; queue: string };

/** One attempt of a run as stored (see FileRunStore.readStoredAttempts). */
export interface StoredAttempt {
  attempt: number;
  status: ReadJsonResult<RunStatus>;
  /** Who claimed the attempt to execute it (the claim file's text), or null when nobody did. */
  claimedBy: string | null;
  /** The run process's last heartbeat (wall-clock ms), or null. */
  heartbeatMs: number | null;
  /** The note left when the final status could not be written, or null. */
  unwritten: UnwrittenFinalStatus | null;
}

/** How long a run or attempt directory without a status counts as "being created" rather than abandoned. */
const CREATION_GRACE_MS = 1 * MINUTE;

/** Run directories looked at together by removeAbandonedCreations. */
const ABANDONED_SCAN_BATCH = 32;

const ATTEMPT_DIR_PATTERN = /^[1-9]\d{0,8}$/;
/** An active marker's name, `<run ID>.json`. */
export const ACTIVE_FILE_PATTERN = /^([A-Za-z0-9_-]{1,64})\.json$/;

type LatestStatus = ReadStatusResult & { attempt: number };

/** Ended runs whose list entries are kept (about 0.5 KiB each): several pages of any run list. */
const MAX_ENDED_SUMMARIES = 5000;

/** RunStore backed by files under `DAGU_HOME/data`; safe for several processes and hosts. */
export class FileRunStore implements RunStore {
  private readonly runsDir: string;
  private readonly indexDir: string;
  private readonly activeDir: string;
  private readonly deletedDir: string;
  private readonly workRoot: string;
  private readonly logRoot: string;
  private readonly onCorrupt: (report: CorruptFileReport) => void;
  /** Active markers already read, by file name (see listActive). */
  private readonly activeCache = new Map<string, ActiveRun>();
  /** List entries of ended attempts, by run ID, least recently used first (see summarize). */
  private readonly endedSummaries = new Map<string, RunSummary>();
  private readonly maxScannedPerPage: number;

  constructor(opts: FileRunStoreOptions) {
    const dataDir = path.resolve(opts.dataDir);
    this.runsDir = path.join(dataDir, 'runs');
    this.indexDir = path.join(dataDir, 'index');
    this.activeDir = path.join(dataDir, 'active');
    this.deletedDir = path.join(dataDir, 'deleted');
    this.workRoot = path.join(dataDir, 'dag-run-work');
    this.logRoot = path.resolve(opts.logDir);
    this.onCorrupt = onceReporter(opts.onCorrupt);
    this.maxScannedPerPage = opts.maxScannedPerPage ?? 2000;
  }

  async createRun(initial: RunStatus): Promise<CreateRunResult> {
    assertStatusNames(initial);
    if (initial.attempt !== 1) throw new AttemptConflictError(initial.run_id, initial.attempt, 0);
    if (!(await mkdirExclusive(this.runDir(initial.run_id)))) return { created: false, reason: 'exists' };
    try {
      await this.index(initial);
      // The run directory was just made by this call, so it is empty: two plain mkdirs, no lookups.
      const attemptDir = this.attemptDir(initial.run_id, 1);
      await fs.mkdir(path.dirname(attemptDir));
      await fs.mkdir(attemptDir);
      await this.markActiveIfLive(initial);
      await writeFileAtomic(path.join(attemptDir, 'status.json'), serialize(initial));
    } catch (err) {
      throw await this.rollBack(initial, err, this.runDir(initial.run_id), true);
    }
    return { created: true };
  }

  /**
   * Undoes a create that failed midway: the active marker first (so nothing counts the run as running), then
   * the new directory, then (for a new run) the list entries, but only once the directory is gone: a run
   * directory that stays must stay listed, or nobody would ever see it.
   */
  private async rollBack(status: RunStatus, cause: unknown, dir: string, unlist: boolean) {
    const left: string[] = [];
    const attempt = async (what: string, undo: () => Promise<void>) => {
      await undo().catch(() => left.push(what));
    };
    if (status.status === 'queued' || status.status === 'running')
      await attempt('its active marker', () => this.unmarkActive(status.run_id));
    await attempt(dir, () => fs.removeTree(dir));
    if (unlist && !left.includes(dir)) {
      const createdMs = createdMsOf(status);
      await attempt('its run-list entries', async () => {
        await removeIndexMarker(path.join(this.indexDir, 'all'), createdMs, status.run_id, status.dag_name);
        await removeIndexMarker(
          path.join(this.indexDir, 'dag', status.dag_name),
          createdMs,
          status.run_id,
          null,
        );
      });
    }
    return new RunCreateError(status.run_id, status.attempt, cause, left.length > 0 ? left.join(', ') : null);
  }

  /**
   * Removes the run directories creators left empty: createRun makes the directory (its claim) before it
   * lists the run, so a creator that died right in between leaves a directory that nothing lists and nothing
   * refers to, with nothing in it to keep. Only a directory with no entries, unchanged for `olderThanMs`,
   * whose run ID `mayRemove` accepts, is removed, by `rmdir`, which refuses one that a late creator wrote
   * into meanwhile (that creator then fails and rolls its creation back). Returns the run IDs removed.
   */
  async removeAbandonedCreations(
    olderThanMs: number,
    mayRemove: (runId: string) => boolean,
  ): Promise<string[]> {
    const names = (await readdirOrEmpty(this.runsDir)).filter((n) => isValidRunId(n) && mayRemove(n));
    const removed: string[] = [];
    const check = async (runId: string) => {
      const dir = this.runDir(runId);
      const stat = await fs.stat(dir).catch(() => null);
      // A directory with a subdirectory (`attempts`) has more than two links on most file systems: skipped
      // without listing it. Where the count says nothing (1), the listing decides.
      if (stat === null || !stat.isDirectory() || stat.nlink > 2) return;
      if (Date.now() - stat.mtimeMs < olderThanMs) return;
      if ((await readdirOrEmpty(dir)).length > 0) return;
      try {
        await fs.rmdir(dir);
        removed.push(runId);
      } catch (err) {
        if (errorCode(err) !== 'ENOTEMPTY' && errorCode(err) !== 'EEXIST' && errorCode(err) !== 'ENOENT')
          throw err;
      }
    };
    for (let i = 0; i < names.length; i += ABANDONED_SCAN_BATCH) {
      await Promise.all(names.slice(i, i + ABANDONED_SCAN_BATCH).map(check));
    }
    return removed;
  }

  async completeRun(initial: RunStatus): Promise<boolean> {
    assertStatusNames(initial);
    if (initial.attempt !== 1) throw new AttemptConflictError(initial.run_id, initial.attempt, 0);
    if (
      (await this.attemptNumbers(initial.run_id)) === null &&
      !(await this.dirExists(this.runDir(initial.run_id)))
    )
      return false;
    // In createRun's order: listed, then marked, then the status (see the top of this file).
    await this.index(initial);
    const attemptDir = this.attemptDir(initial.run_id, 1);
    await ensureDir(attemptDir);
    await this.markActiveIfLive(initial);
    // Exclusive: of a late write by the crashed creator and this repair, the first one stays. A marker written
    // for a run whose status turns out to be there already is the reaper's to clear if that run has ended.
    return createFileExclusive(path.join(attemptDir, 'status.json'), serialize(initial));
  }

  /**
   * A new run (or attempt) that is queued or running is marked active as it is created, before it is listed:
   * a run anyone can see is one the reaper can find, even if its creator dies right after (unmarked, it would
   * stay so for ever).
   */
  private async markActiveIfLive(initial: RunStatus): Promise<void> {
    if (initial.status !== 'queued' && initial.status !== 'running') return;
    await this.markActive({ run_id: initial.run_id, dag_name: initial.dag_name, queue: initial.queue });
  }

  async ensureIndexed(status: RunStatus): Promise<void> {
    assertStatusNames(status);
    await this.index(status);
  }

  private async dirExists(dir: string): Promise<boolean> {
    return fs.stat(dir).then(
      (st) => st.isDirectory(),
      () => false,
    );
  }

  private async index(initial: RunStatus): Promise<void> {
    const createdMs = createdMsOf(initial);
    // Both settle before a failure is thrown: a rollback must not race the other marker's write.
    const results = await Promise.allSettled([
      addIndexMarker(path.join(this.indexDir, 'all'), createdMs, initial.run_id, initial.dag_name),
      addIndexMarker(path.join(this.indexDir, 'dag', initial.dag_name), createdMs, initial.run_id, null),
    ]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  async createAttempt(status: RunStatus): Promise<void> {
    assertStatusNames(status);
    const attempts = await this.attemptNumbers(status.run_id);
    if (attempts === null) throw new RunNotFoundError(status.run_id);
    const latest = attempts[0] ?? 0;
    if (status.attempt !== latest + 1) throw new AttemptConflictError(status.run_id, status.attempt, latest);
    const attemptDir = this.attemptDir(status.run_id, status.attempt);
    try {
      await fs.mkdir(attemptDir);
    } catch (err) {
      // Another process created this attempt between our listing and our mkdir.
      if (errorCode(err) !== 'EEXIST') throw err;
      throw new AttemptConflictError(status.run_id, status.attempt, status.attempt);
    }
    try {
      await this.markActiveIfLive(status);
      await writeFileAtomic(path.join(attemptDir, 'status.json'), serialize(status));
    } catch (err) {
      throw await this.rollBack(status, err, attemptDir, false);
    }
  }

  /** The status file and the active marker are two files: an end is unmarked by a write of its own. */
  readonly unmarksEnded = false;
  readonly clearsCancelsOnEnd = false;

  async writeStatus(status: RunStatus, _replaces?: RunStatus, opts?: WriteStatusOptions): Promise<void> {
    assertStatusNames(status);
    await this.writeInAttempt(status.run_id, status.attempt, 'status.json', serialize(status));
    if (opts?.heartbeatMs !== undefined) {
      await this.writeHeartbeat(status.run_id, status.attempt, opts.heartbeatMs);
    }
  }

  async recordUnwrittenFinalStatus(
    runId: string,
    attempt: number,
    note: UnwrittenFinalStatus,
  ): Promise<void> {
    assertRunId(runId);
    // An empty file whose name says it all: creating it takes an inode but no data block, so it can still
    // be made on a disk too full for the status itself.
    await this.writeInAttempt(runId, attempt, unwrittenNoteName(note), '', false, false);
  }

  async readUnwrittenFinalStatus(runId: string, attempt: number): Promise<UnwrittenFinalStatus | null> {
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) return null;
    for (const name of await readdirOrEmpty(this.attemptDir(runId, attempt))) {
      const note = parseUnwrittenNoteName(name);
      if (note !== null) return note;
    }
    return null;
  }

  async readStatus(runId: string): Promise<ReadStatusResult> {
    assertRunId(runId);
    const { attempt: _attempt, ...result } = await this.readLatest(runId);
    return result;
  }

  async listRuns(query: RunListQuery): Promise<RunListPage> {
    if (query.dag !== undefined) assertDagName(query.dag);
    const limit = clampLimit(query.limit);
    // The time range bounds the index walk: its end is where the walk starts, its start where it stops.
    let before = upperKey(parseCursor(query.cursor), query.createdToMs);
    const from = query.createdFromMs ?? -Infinity;
    const root =
      query.dag === undefined ? path.join(this.indexDir, 'all') : path.join(this.indexDir, 'dag', query.dag);
    const dagOf = (entry: RunIndexEntry) => entry.dagName ?? query.dag ?? '';

    if (query.status === undefined && query.trigger === undefined) {
      const read = await newestIndexEntries(root, limit + 1, before);
      const entries = read.filter((entry) => entry.createdMs >= from);
      const page = entries.slice(0, limit);
      const summaries = await mapConcurrently(page, FILE_READ_CONCURRENCY, (entry) =>
        this.summarize(entry, dagOf(entry)),
      );
      return {
        items: summaries.filter((summary) => summary !== null),
        next_cursor: entries.length > limit ? page[page.length - 1].key : null,
      };
    }
    // A status or trigger filter needs the statuses: scan chunks of the index until the page is full. Start
    // with one page's worth (most runs match), then read larger chunks. A rare match would mean reading the
    // whole history, so one call scans at most `maxScannedPerPage` runs and may return a short page whose
    // cursor continues the scan.
    const items: RunSummary[] = [];
    let scanned = 0;
    for (let chunk = limit + 1; ; chunk = Math.min(chunk * 2, 1000)) {
      if (scanned >= this.maxScannedPerPage) return { items, next_cursor: before };
      const read = await newestIndexEntries(root, chunk, before);
      const entries = read.filter((entry) => entry.createdMs >= from);
      // Entries past the range's start: nothing older can match.
      const ended = entries.length < read.length || read.length < chunk;
      scanned += entries.length;
      const summaries = await mapConcurrently(entries, FILE_READ_CONCURRENCY, (entry) =>
        this.summarize(entry, dagOf(entry)),
      );
      for (let i = 0; i < summaries.length; i++) {
        const summary = summaries[i];
        if (summary === null || !matchesRecord(summary, query)) continue;
        items.push(summary);
        if (items.length === limit) {
          const more = i < summaries.length - 1 || !ended;
          return { items, next_cursor: more ? entries[i].key : null };
        }
      }
      if (ended) return { items, next_cursor: null };
      before = entries[entries.length - 1].key;
    }
  }

  async listActive(): Promise<ActiveRun[]> {
    const names = (await readdirOrEmpty(this.activeDir)).filter((name) => ACTIVE_FILE_PATTERN.test(name));
    // A marker's content never changes while it exists (a run keeps its DAG and queue), so only markers
    // not seen before are read: a queue of hundreds of waiting runs costs one directory listing per pass.
    const listed = new Set(names);
    for (const name of this.activeCache.keys()) if (!listed.has(name)) this.activeCache.delete(name);
    const unseen = names.filter((name) => !this.activeCache.has(name));
    const results = await mapConcurrently(unseen, FILE_READ_CONCURRENCY, (name) => {
      const runId = ACTIVE_FILE_PATTERN.exec(name)![1];
      return readJsonFile<ActiveRun>(path.join(this.activeDir, name), (v) => activeShapeError(v, runId));
    });
    results.forEach((result, i) => {
      if (result.kind === 'ok') {
        const { run_id, dag_name, queue } = result.value;
        this.activeCache.set(unseen[i], { run_id, dag_name, queue });
      } else if (result.kind === 'corrupt') {
        this.onCorrupt({ path: result.path, error: result.error });
      }
    });
    const active = names.flatMap((name) => {
      const run = this.activeCache.get(name);
      return run ? [{ ...run }] : [];
    });
    return active.sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0));
  }

  async markActive(run: ActiveRun): Promise<void> {
    assertRunId(run.run_id);
    assertDagName(run.dag_name);
    assertDagName(run.queue, 'queue name');
    const record: ActiveRun = { run_id: run.run_id, dag_name: run.dag_name, queue: run.queue };
    const file = path.join(this.activeDir, `${run.run_id}.json`);
    const text = JSON.stringify(record) + '\n';
    // A queued run is marked when it is created, and its run process marks it again as it takes it over:
    // a marker already on disk as it would be written (fsynced then) is left as it is, which saves that
    // process a write, an fsync and a rename.
    if ((await readTextFile(file).catch(() => null)) === text) return;
    // The folder exists but for the very first run: writing first saves a mkdir on every run.
    await writeFileAtomic(file, text).catch(async (err: unknown) => {
      if (errorCode(err) !== 'ENOENT') throw err;
      await ensureDir(this.activeDir);
      await writeFileAtomic(file, text);
    });
  }

  async unmarkActive(runId: string): Promise<void> {
    assertRunId(runId);
    await fs.unlink(path.join(this.activeDir, `${runId}.json`)).catch((err: unknown) => {
      if (errorCode(err) !== 'ENOENT') throw err;
    });
  }

  async claimAttempt(runId: string, attempt: number, owner: string): Promise<boolean> {
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) throw new RunNotFoundError(runId, attempt);
    try {
      return await createFileExclusive(path.join(this.attemptDir(runId, attempt), 'claim'), `${owner}\n`);
    } catch (err) {
      const code = errorCode(err);
      throw code === 'ENOENT' || code === 'ENOTDIR' ? new RunNotFoundError(runId, attempt) : err;
    }
  }

  async isClaimed(runId: string, attempt: number): Promise<boolean> {
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) return false;
    return fs.stat(path.join(this.attemptDir(runId, attempt), 'claim')).then(
      () => true,
      (err: unknown) => {
        if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return false;
        throw err;
      },
    );
  }

  /**
   * A claim file cannot be taken back atomically against its claimant's next status write (a check of the
   * claim and the write of the status are two file calls), so claims are never released here.
   */
  readonly releasesClaims = false;

  async beginClaimedAttempt(status: RunStatus, _owner: string): Promise<boolean> {
    await this.writeStatus(status);
    return true;
  }

  async releaseClaim(_runId: string, _attempt: number, _owner: string): Promise<boolean> {
    return false;
  }

  async readClaim(runId: string, attempt: number): Promise<string | null> {
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) return null;
    // The claim is created whole (written, then linked into place), so a reader never sees it half written.
    return readTextFile(path.join(this.attemptDir(runId, attempt), 'claim')).then(
      (text) => text.trim(),
      (err: unknown) => {
        if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
        throw err;
      },
    );
  }

  async writeHeartbeat(runId: string, attempt: number, nowMs: number): Promise<void> {
    assertRunId(runId);
    // Not fsynced: a heartbeat lost in a crash only makes the run look stale sooner, and its writer died too.
    await this.writeInAttempt(runId, attempt, 'heartbeat', String(Math.floor(nowMs)), false);
  }

  async readHeartbeat(runId: string, attempt: number): Promise<number | null> {
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) return null;
    const file = path.join(this.attemptDir(runId, attempt), 'heartbeat');
    let text: string;
    try {
      text = await readTextFile(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
    if (!/^\d{1,15}$/.test(text.trim())) {
      this.onCorrupt({
        path: file,
        error: `not a heartbeat timestamp: ${JSON.stringify(text.slice(0, 40))}`,
      });
      return null;
    }
    return Number(text.trim());
  }

  /**
   * Every attempt of a run as its files hold it, oldest first, for copying the data directory elsewhere
   * (`dagu storage migrate`); null when the run does not exist. Only reads: an attempt without a readable
   * status comes back as it is (`missing` or `corrupt`), for the caller to report.
   */
  async readStoredAttempts(runId: string): Promise<StoredAttempt[] | null> {
    assertRunId(runId);
    const numbers = await this.attemptNumbers(runId);
    if (numbers === null) return null;
    const out: StoredAttempt[] = [];
    for (const attempt of [...numbers].reverse()) {
      const dir = this.attemptDir(runId, attempt);
      const status = await readJsonFile<RunStatus>(path.join(dir, 'status.json'), (value) =>
        runStatusError(value, runId, attempt),
      );
      const claim = await readTextFile(path.join(dir, 'claim')).catch((err: unknown) => {
        if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
        throw err;
      });
      out.push({
        attempt,
        status,
        claimedBy: claim === null ? null : claim.trim(),
        heartbeatMs: await this.readHeartbeat(runId, attempt),
        unwritten: await this.readUnwrittenFinalStatus(runId, attempt),
      });
    }
    return out;
  }

  logDir(dagName: string, runId: string, attempt: number): string {
    assertDagName(dagName);
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) throw new RunNotFoundError(runId, attempt);
    return path.join(this.logRoot, dagName, runId, String(attempt));
  }

  async history(dagName: string): Promise<HistoryEntry[]> {
    assertDagName(dagName);
    const entries = await newestIndexEntries(path.join(this.indexDir, 'dag', dagName), Infinity, null);
    return entries.map((e) => ({ run_id: e.runId, created_ms: e.createdMs }));
  }

  /**
   * Deletes in an order that a crash cannot turn into a listed run that reads as corrupt: the run directory
   * is first moved aside in one rename (from then on the run reads as missing, and the list skips it), then
   * its list entries, logs and work directory go, and the moved directory last. `purgeDeleted` finishes a
   * deletion that stopped midway, from the status kept in the moved directory.
   */
  async deleteRun(runId: string): Promise<DeleteRunResult> {
    assertRunId(runId);
    const latest = await this.readLatest(runId);
    if (latest.kind === 'missing') return { deleted: false, reason: 'missing' };
    if (latest.kind !== 'ok') return { deleted: false, reason: 'unreadable' };
    if (!TERMINAL_RUN_STATES.includes(latest.status.status)) return { deleted: false, reason: 'live' };
    const marker = await fs.stat(this.activeFile(runId)).catch(() => null);
    if (marker !== null) return { deleted: false, reason: 'live' };
    await ensureDir(this.deletedDir);
    try {
      await fs.rename(this.runDir(runId), path.join(this.deletedDir, runId));
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return { deleted: false, reason: 'missing' };
      throw err;
    }
    this.endedSummaries.delete(runId);
    await this.purge(runId, latest.status);
    return { deleted: true };
  }

  async purgeDeleted(): Promise<number> {
    let done = 0;
    for (const runId of await readdirOrEmpty(this.deletedDir)) {
      if (!isValidRunId(runId)) continue;
      const attempts = (await readdirOrEmpty(path.join(this.deletedDir, runId, 'attempts')))
        .filter((n) => ATTEMPT_DIR_PATTERN.test(n))
        .map(Number);
      let status: RunStatus | null = null;
      for (const n of attempts) {
        const file = path.join(this.deletedDir, runId, 'attempts', String(n), 'status.json');
        const read = await readJsonFile<RunStatus>(file, (v) => runStatusError(v, runId, n));
        if (read.kind === 'ok') {
          status = read.value;
          break;
        }
      }
      await this.purge(runId, status);
      done++;
    }
    return done;
  }

  /** Removes what is left of a run moved to `deleted/`; without its status only the directory itself goes. */
  private async purge(runId: string, status: RunStatus | null): Promise<void> {
    if (status !== null) {
      // Logs first: once a run is gone from the list, nothing of it is left but the moved directory.
      await fs.removeTree(path.join(this.logRoot, status.dag_name, runId));
      const ownLogs = ownLogDirOf(status);
      if (ownLogs !== null) await fs.removeTree(ownLogs);
      await fs.removeTree(path.join(this.workRoot, status.dag_name, runId));
      // Artifacts kept under the DAG's own `artifacts.dir` (the default ones are in the run's directory).
      const recorded = await readTextFile(path.join(this.deletedDir, runId, ARTIFACTS_DIR_FILE)).catch(
        () => null,
      );
      const ownArtifacts = recorded === null ? null : recordedArtifactsDir(recorded, runId, status.dag_name);
      if (ownArtifacts !== null) await fs.removeTree(ownArtifacts);
      const createdMs = createdMsOf(status);
      await removeIndexMarker(path.join(this.indexDir, 'all'), createdMs, runId, status.dag_name);
      await removeIndexMarker(path.join(this.indexDir, 'dag', status.dag_name), createdMs, runId, null);
    }
    await fs.removeTree(path.join(this.deletedDir, runId));
  }

  private activeFile(runId: string): string {
    return path.join(this.activeDir, `${runId}.json`);
  }

  private runDir(runId: string): string {
    return path.join(this.runsDir, runId);
  }

  private attemptDir(runId: string, attempt: number): string {
    return path.join(this.runsDir, runId, 'attempts', String(attempt));
  }

  /** Attempt numbers, highest first; null if the run does not exist. */
  private async attemptNumbers(runId: string): Promise<number[] | null> {
    try {
      const names = await fs.readdir(path.join(this.runDir(runId), 'attempts'));
      return names
        .filter((name) => ATTEMPT_DIR_PATTERN.test(name))
        .map(Number)
        .sort((a, b) => b - a);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT' && errorCode(err) !== 'ENOTDIR') throw err;
    }
    return (await this.isYoungOrMissing(this.runDir(runId))) === 'missing' ? null : [];
  }

  private async writeInAttempt(
    runId: string,
    attempt: number,
    name: string,
    data: string,
    durable = true,
    atomic = true,
  ): Promise<void> {
    if (!isAttemptNumber(attempt)) throw new RunNotFoundError(runId, attempt);
    try {
      // Never creates the attempt directory: only createRun/createAttempt may, exclusively.
      const file = path.join(this.attemptDir(runId, attempt), name);
      await (atomic ? writeFileAtomic(file, data, { durable }) : fs.writeFile(file, data));
    } catch (err) {
      const code = errorCode(err);
      throw code === 'ENOENT' || code === 'ENOTDIR' ? new RunNotFoundError(runId, attempt) : err;
    }
  }

  private async readLatest(runId: string): Promise<LatestStatus> {
    return this.readLatestOf(runId, await this.attemptNumbers(runId));
  }

  /** readLatest with the run's attempt numbers (newest first) already listed. */
  private async readLatestOf(runId: string, attempts: number[] | null): Promise<LatestStatus> {
    if (attempts === null) return { kind: 'missing', attempt: 0 };
    if (attempts.length === 0) {
      return this.incomplete(this.runDir(runId), 0, 'the run directory has no attempt');
    }
    for (const attempt of attempts) {
      const file = path.join(this.attemptDir(runId, attempt), 'status.json');
      const result = await readJsonFile<RunStatus>(file, (value) => runStatusError(value, runId, attempt));
      if (result.kind === 'ok') return { kind: 'ok', status: result.value, attempt };
      if (result.kind === 'corrupt') return { ...result, attempt };
      const incomplete = await this.incomplete(
        this.attemptDir(runId, attempt),
        attempt,
        `attempt ${attempt} has no status file`,
      );
      // An attempt being created right now: its predecessor is still the latest readable status.
      if (incomplete.kind === 'missing' && attempt > 1) continue;
      return incomplete;
    }
    return { kind: 'missing', attempt: 0 };
  }

  /** A directory whose status is not written yet: `missing` while young, `corrupt` once abandoned. */
  private async incomplete(dir: string, attempt: number, what: string): Promise<LatestStatus> {
    if ((await this.isYoungOrMissing(dir)) !== 'old') return { kind: 'missing', attempt };
    return {
      kind: 'corrupt',
      attempt,
      path: dir,
      error: `${what}: the process that created it probably crashed before writing its status`,
      incomplete: true,
    };
  }

  /** Whether a directory is absent, young (still being filled) or old. Display-only, so wall-clock is fine. */
  private async isYoungOrMissing(dir: string): Promise<'missing' | 'young' | 'old'> {
    const stat = await fs.stat(dir).catch(() => null);
    if (stat === null) return 'missing';
    return Date.now() - stat.mtimeMs < CREATION_GRACE_MS ? 'young' : 'old';
  }

  /**
   * A run's list entry. The status of an attempt that has ended is never written again (a retry or resume
   * makes a new attempt), so the entry of an ended latest attempt is kept and served again while the
   * attempt list shows no newer one: a page of the run list then costs one directory listing per ended run
   * instead of reading its status file each time.
   */
  private async summarize(entry: RunIndexEntry, dagName: string): Promise<RunSummary | null> {
    const attempts = await this.attemptNumbers(entry.runId);
    const cached = this.endedSummaries.get(entry.runId);
    if (cached !== undefined && attempts !== null && attempts[0] === cached.attempt) {
      this.endedSummaries.delete(entry.runId);
      this.endedSummaries.set(entry.runId, cached);
      return isStaleEntry(entry, cached) ? null : { ...cached };
    }
    const latest = await this.readLatestOf(entry.runId, attempts);
    const known = { dagName, runId: entry.runId, createdMs: entry.createdMs, attempt: latest.attempt };
    if (latest.kind === 'ok') {
      const summary = summarizeRun(latest.status);
      if (isStaleEntry(entry, summary)) return null;
      if (TERMINAL_RUN_STATES.includes(latest.status.status) && latest.attempt === attempts?.[0]) {
        this.endedSummaries.delete(entry.runId);
        this.endedSummaries.set(entry.runId, { ...summary });
        if (this.endedSummaries.size > MAX_ENDED_SUMMARIES) {
          this.endedSummaries.delete(this.endedSummaries.keys().next().value!);
        }
      }
      return summary;
    }
    if (latest.kind === 'corrupt') return corruptRunSummary(known, `${latest.path}: ${latest.error}`);
    // Listed, but no status yet: a run being created (its directory is young), or one whose failed creation
    // is being rolled back. Shown once it has a status; as corrupt if it never gets one.
    if (attempts !== null || Date.now() - entry.createdMs < CREATION_GRACE_MS) return null;
    // A run being deleted: its directory was moved aside and its list entries go next.
    if (await this.dirExists(path.join(this.deletedDir, entry.runId))) return null;
    return corruptRunSummary(known, 'the run is in the index but its run directory is missing');
  }
}

/**
 * A list entry of attempt 1 that does not carry the time its status was created with: the creator listed the
 * run and died before its status, and a successor completed and listed it again at its own time (completeRun).
 * The entry the status agrees with is the run's; this one would list it twice. Later attempts have times of
 * their own, so only attempt 1 can be told this way.
 */
function isStaleEntry(entry: RunIndexEntry, summary: RunSummary): boolean {
  return summary.attempt === 1 && createdMsOf(summary) !== entry.createdMs;
}

/**
 * The run's log directory under its DAG's own `log_dir` (an absolute attempt directory in the record,
 * `<log_dir>/<dag>/<run_id>/<attempt>`), or null. Only a path of exactly that shape is taken, so a record can
 * never point a deletion anywhere else.
 */
function ownLogDirOf(status: RunStatus): string | null {
  if (!path.isAbsolute(status.log_dir)) return null;
  const attemptDir = path.normalize(status.log_dir);
  const runDir = path.dirname(attemptDir);
  const ok =
    ATTEMPT_DIR_PATTERN.test(path.basename(attemptDir)) &&
    path.basename(runDir) === status.run_id &&
    path.basename(path.dirname(runDir)) === status.dag_name &&
    path.dirname(path.dirname(runDir)) !== path.parse(runDir).root;
  return ok ? runDir : null;
}

function serialize(status: RunStatus): string {
  return JSON.stringify(status, null, 2) + '\n';
}

function runStatusError(value: unknown, runId: string, attempt: number): string | null {
  const problem = statusShapeError(value);
  if (problem !== null) return `not a run status: ${problem}`;
  const status = value as RunStatus;
  if (status.run_id !== runId) return `status of run ${status.run_id} found in the directory of run ${runId}`;
  if (status.attempt !== attempt) {
    return `status of attempt ${status.attempt} found in the directory of attempt ${attempt}`;
  }
  return null;
}

function activeShapeError(value: unknown, runId: string): string | null {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.run_id !== runId) return `run_id does not match the file name ${runId}.json`;
  if (typeof v.dag_name !== 'string' || typeof v.queue !== 'string') return 'dag_name or queue is missing';
  return null;
}
