// DispatchStore on the shared data directory: one JSON file per task,
//   data/cluster/pending/<task_id>.json   waiting for a worker
//   data/cluster/claims/<task_id>.json    claimed, not yet acknowledged
// A claim is `rename(pending → claims)`: of several coordinators or pollers exactly one rename succeeds.
// Giving a claim back renames it to a name of the returner's own in claims/, rewrites it there and renames it
// into pending/: the task is one file throughout, never a copy in each directory.
// Corrupt files are logged and skipped, never deleted. Task files of ours that an earlier version left in
// data/distributed/{pending,claims} are moved here at first use; Dagu 2.x's task files there (named
// `task_<ms>_<uuid>.json`) are never read or touched.

import path from 'node:path';
import { isClaimable, selectorMatches } from '../core/distributed';
import type { Labels } from '../core/distributed';
import { assertRunId } from '../core/names';
import type { Logger } from '../core/ports';
import { silentLogger } from '../core/ports';
import { onceReporter } from './corruptReporter';
import * as fs from './fileCalls';
import {
  assertNewTask,
  compareTasks,
  distributedDirs,
  isLabels,
  legacyDistributedDirs,
  isValidTaskId,
  newClaimToken,
  parseTaskId,
  taskIdOf,
} from './distributedDir';
import type {
  AckResult,
  DispatchStore,
  DispatchTask,
  NewDispatchTask,
  PendingSummary,
} from './dispatchTypes';
import type { CorruptFileReport } from './fsutil';
import {
  createFileExclusive,
  ensureDir,
  errorCode,
  pathExists,
  readJsonFile,
  readdirOrEmpty,
  writeFileAtomic,
} from './fsutil';
import { adoptLegacyFiles, parseJsonOrUndefined } from './legacyDistributed';
import { randomHex } from './randomHex';
import { FILE_READ_CONCURRENCY, mapConcurrently, runConcurrently } from '../core/concurrency';

/** Options of FileDispatchStore. */
export interface FileDispatchStoreOptions {
  /** `DAGU_HOME/data`. */
  dataDir: string;
  /** Told once about each corrupt task file that is skipped. */
  logger?: Logger;
  /**
   * False: never move an earlier version's task files out of data/distributed (for a reader that must leave
   * the data directory as it is: `dagu storage migrate`). Default true.
   */
  adoptLegacy?: boolean;
}

/** What claimNext needs to know of a pending task without reading its file. */
interface IndexEntry {
  task_id: string;
  worker_selector: Labels;
  hold_until_ms: number | null;
  enqueued_at_ms: number;
}

const JSON_SUFFIX = '.json';
/** A claim being given back: renamed out of the way first, so exactly one process returns it. */
const RETURNING_PATTERN = /^(.+)\.json\.returning-[0-9a-f]{8}$/;

/** DispatchStore backed by task files under `DAGU_HOME/data/cluster`; safe for several processes and hosts. */
export class FileDispatchStore implements DispatchStore {
  readonly durable = true;
  private readonly pendingDir: string;
  private readonly claimsDir: string;
  private readonly legacy: { pending: string; claims: string };
  private readonly logger: Logger;
  /** Adoption of an earlier version's task files, once per process (and again at rebuildIndex). */
  private adopted: Promise<void> | null = null;
  private readonly adopts: boolean;
  private readonly report: (report: CorruptFileReport) => void;
  /**
   * Pending tasks already read, by ID, so each file is read once: workers poll several times a second and
   * held tasks can wait by the thousand. Selector and hold of a task never change; only a claim given back
   * by another process comes back with a new enqueue time, which the index may miss. That only shifts the
   * task's place in line, and expiry reads the file before it decides.
   */
  private readonly index = new Map<string, IndexEntry>();
  /** Pending files found corrupt: not read again until rebuildIndex. */
  private readonly corrupt = new Set<string>();

  constructor(opts: FileDispatchStoreOptions) {
    const dirs = distributedDirs(opts.dataDir);
    this.pendingDir = dirs.pending;
    this.claimsDir = dirs.claims;
    const legacy = legacyDistributedDirs(opts.dataDir);
    this.legacy = { pending: legacy.pending, claims: legacy.claims };
    const logger = opts.logger ?? silentLogger;
    this.logger = logger;
    this.adopts = opts.adoptLegacy ?? true;
    this.report = onceReporter((r) =>
      logger.warn('Skipping a corrupt dispatch task file', { path: r.path, error: r.error }),
    );
  }

  async enqueue(task: NewDispatchTask): Promise<DispatchTask> {
    await this.adoptLegacy();
    assertNewTask(task);
    await Promise.all([ensureDir(this.pendingDir), ensureDir(this.claimsDir)]);
    // The same run and attempt enqueued twice within a millisecond: the later one takes the next free ID.
    for (let idMs = task.enqueued_at_ms; ; idMs++) {
      const taskId = taskIdOf(idMs, task.run_id, task.attempt);
      if (await pathExists(this.claimFile(taskId))) continue;
      const stored: DispatchTask = { ...task, version: 1, task_id: taskId, claim: null };
      if (await createFileExclusive(this.pendingFile(taskId), serialize(stored))) {
        this.index.set(taskId, indexEntry(stored));
        return stored;
      }
    }
  }

  async claimNext(
    worker: { worker_id: string; labels: Labels },
    nowMs: number,
  ): Promise<DispatchTask | null> {
    await this.refreshIndex();
    const candidates = [...this.index.values()]
      .filter((e) => selectorMatches(e.worker_selector, worker.labels) && isClaimable(e, nowMs))
      .sort(compareTasks);
    for (const candidate of candidates) {
      const claimed = await this.claim(candidate.task_id, worker.worker_id, nowMs);
      if (claimed) return claimed;
    }
    return null;
  }

  async takeExpiredHold(taskId: string, taker: string, nowMs: number): Promise<DispatchTask | null> {
    await this.adoptLegacy();
    if (!isValidTaskId(taskId)) return null;
    // The file is the truth (the index may miss a claim given back with a new enqueue time).
    const task = await this.readTask(this.pendingFile(taskId), taskId);
    if (!task || task.hold_until_ms === null || task.hold_until_ms > nowMs) return null;
    return this.claim(taskId, taker, nowMs);
  }

  /** Moves a pending task to claims/ as `claimant`'s; null when another claimer or a delete got it first. */
  private async claim(taskId: string, claimant: string, nowMs: number): Promise<DispatchTask | null> {
    try {
      await fs.rename(this.pendingFile(taskId), this.claimFile(taskId));
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
      this.index.delete(taskId);
      return null;
    }
    this.index.delete(taskId);
    const task = await this.readTask(this.claimFile(taskId), taskId);
    if (!task) {
      // Unreadable now though it was readable when indexed: put it back where the detector sees it.
      await fs.rename(this.claimFile(taskId), this.pendingFile(taskId)).catch(() => {});
      return null;
    }
    const claimed: DispatchTask = {
      ...task,
      claim: { worker_id: claimant, token: newClaimToken(), claimed_at_ms: nowMs },
    };
    // Until this write the claim file has no claim fields; recycle then dates the claim by the file's
    // change time, which the rename just set, so it cannot give the claim back under our feet.
    try {
      await writeFileAtomic(this.claimFile(taskId), serialize(claimed));
    } catch (err) {
      // The claim could not be written (a full disk): nobody holds the task, so it goes back to pending at
      // once (a rename needs no new data block) rather than after the reservation TTL. A held run whose
      // wait ran out is then failed at the next pass that can write, not a TTL later.
      await fs.rename(this.claimFile(taskId), this.pendingFile(taskId)).then(
        () => this.index.set(taskId, indexEntry(task)),
        () => undefined,
      );
      throw err;
    }
    return claimed;
  }

  async ack(taskId: string, workerId: string, token: string): Promise<AckResult> {
    await this.adoptLegacy();
    if (!isValidTaskId(taskId)) return { ok: false, reason: 'not_found' };
    const task = await this.readTask(this.claimFile(taskId), taskId);
    if (!task) return { ok: false, reason: 'not_found' };
    if (task.claim?.worker_id !== workerId) return { ok: false, reason: 'wrong_worker' };
    // The same worker with another token holds a newer claim: the one being acknowledged is gone.
    if (task.claim.token !== token) return { ok: false, reason: 'not_found' };
    try {
      await fs.unlink(this.claimFile(taskId));
    } catch (err) {
      // Given back to pending meanwhile: the claim is no longer this worker's.
      if (errorCode(err) === 'ENOENT') return { ok: false, reason: 'not_found' };
      throw err;
    }
    return { ok: true, task };
  }

  async release(taskId: string, claimant: string, token: string): Promise<boolean> {
    await this.adoptLegacy();
    if (!isValidTaskId(taskId)) return false;
    // Renamed to a name of our own first, as recycle does: a late ack or a recycler then finds it gone.
    const own = path.join(this.claimsDir, `${taskId}${JSON_SUFFIX}.returning-${randomHex(4)}`);
    try {
      await fs.rename(this.claimFile(taskId), own);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return false;
      throw err;
    }
    const task = await this.readTask(own, taskId);
    if (task?.claim?.worker_id !== claimant || task.claim.token !== token) {
      // Another claim (ours was given back and the task claimed anew) or an unreadable file: as it was.
      await fs.rename(own, this.claimFile(taskId));
      return false;
    }
    // As it was before the claim: its place in line and its hold. With no room to write that (the very
    // reason a claimant gives a claim back), the file keeps the old claim's fields, which a pending file's
    // reader ignores and a later claim rewrites: the rename into pending/ needs no new data block.
    const back: DispatchTask = { ...task, claim: null };
    try {
      await this.rewriteReturning(own, back, isSpaceError);
    } catch (err) {
      await fs.rename(own, this.claimFile(taskId)).catch(() => {});
      throw err;
    }
    return this.moveToPending(own, back);
  }

  async listPending(where: (t: PendingSummary) => boolean = () => true): Promise<DispatchTask[]> {
    const ids = (await this.pendingSummaries()).filter(where).map((e) => e.task_id);
    const tasks = await mapConcurrently(ids, FILE_READ_CONCURRENCY, (id) =>
      this.readTask(this.pendingFile(id), id),
    );
    return tasks.filter((t): t is DispatchTask => t !== null).sort(compareTasks);
  }

  async pendingSummaries(): Promise<PendingSummary[]> {
    await this.refreshIndex();
    return [...this.index.values()].sort(compareTasks).map((e) => ({
      task_id: e.task_id,
      run_id: parseTaskId(e.task_id)!.runId,
      worker_selector: { ...e.worker_selector },
      hold_until_ms: e.hold_until_ms,
      enqueued_at_ms: e.enqueued_at_ms,
    }));
  }

  async listClaims(): Promise<DispatchTask[]> {
    await this.adoptLegacy();
    const ids = await taskIdsIn(this.claimsDir);
    const tasks = await mapConcurrently(ids, FILE_READ_CONCURRENCY, (id) =>
      this.readTask(this.claimFile(id), id),
    );
    return tasks.filter((t): t is DispatchTask => t !== null).sort(compareTasks);
  }

  async findByRun(runId: string): Promise<DispatchTask | null> {
    await this.adoptLegacy();
    assertRunId(runId);
    const ofRun = (dir: string) => async () =>
      (await readdirOrEmpty(dir))
        .sort()
        .map((name) => ({ file: path.join(dir, name), taskId: taskIdOfName(name) }))
        .filter((f) => parseTaskId(f.taskId)?.runId === runId);
    // A claim being given back counts (it is on its way to pending/), and a file that moved on between the
    // listing and the read is looked for again: a run whose task is moving is never reported as having none.
    for (let pass = 0; pass < 3; pass++) {
      let moved = false;
      for (const list of [ofRun(this.pendingDir), ofRun(this.claimsDir)]) {
        for (const { file, taskId } of await list()) {
          const task = await this.readTask(file, taskId);
          if (task) return task;
          moved = true;
        }
      }
      if (!moved) return null;
    }
    return null;
  }

  async delete(taskId: string): Promise<boolean> {
    await this.adoptLegacy();
    if (!isValidTaskId(taskId)) return false;
    this.index.delete(taskId);
    try {
      await fs.unlink(this.pendingFile(taskId));
      return true;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return false;
      throw err;
    }
  }

  async recycle(
    nowMs: number,
    ttlMs: number,
    keep: (task: DispatchTask) => boolean = () => false,
  ): Promise<{ returned: DispatchTask[]; expired: DispatchTask[] }> {
    await this.adoptLegacy();
    // Expire first: a claim given back below starts its TTL again now.
    const expired = await this.expireUnclaimed(nowMs, ttlMs, keep);
    const returned: DispatchTask[] = [];
    for (const name of (await readdirOrEmpty(this.claimsDir)).sort()) {
      const back = await this.recycleClaimFile(name, nowMs, ttlMs);
      if (back) returned.push(back);
    }
    return { returned: returned.sort(compareTasks), expired };
  }

  async rebuildIndex(): Promise<void> {
    this.adopted = null;
    this.index.clear();
    this.corrupt.clear();
    await this.refreshIndex();
  }

  /** Removes ordinary pending tasks nobody claimed within the TTL; held tasks wait for the detector. */
  private async expireUnclaimed(
    nowMs: number,
    ttlMs: number,
    keep: (task: DispatchTask) => boolean,
  ): Promise<DispatchTask[]> {
    await this.refreshIndex();
    const overdue = (t: IndexEntry) => t.hold_until_ms === null && nowMs - t.enqueued_at_ms > ttlMs;
    const expired: DispatchTask[] = [];
    for (const entry of [...this.index.values()].filter(overdue).sort(compareTasks)) {
      // The file is the truth: another coordinator may have given the task back (a new enqueue time).
      const task = await this.readTask(this.pendingFile(entry.task_id), entry.task_id);
      if (!task || !overdue(task) || keep(task)) continue;
      if (await this.delete(task.task_id)) expired.push(task);
    }
    return expired;
  }

  /** Gives one file of claims/ back to pending if its claim is older than the TTL. */
  private async recycleClaimFile(name: string, nowMs: number, ttlMs: number): Promise<DispatchTask | null> {
    const returning = RETURNING_PATTERN.test(name);
    const taskId = taskIdOfName(name);
    if (taskId === '') return null;
    const file = path.join(this.claimsDir, name);
    const task = await this.readTask(file, taskId);
    if (!task) return null;
    // A claim dates from its claim fields; a file without them (its claimer is between the rename and the
    // write, or died there) or one half given back (its returner died) dates from when it was last
    // renamed or written.
    let claimedAtMs = task.claim?.claimed_at_ms ?? null;
    if (claimedAtMs === null || returning) {
      const stat = await fs.stat(file).catch(() => null);
      if (!stat) return null;
      claimedAtMs = Math.max(stat.mtimeMs, stat.ctimeMs);
    } else if (nowMs - claimedAtMs > ttlMs) {
      // Fields that look expired may be an earlier claim's, kept by a give-back with no room to rewrite the
      // file, which a new claimer has just renamed here and not yet rewritten. Such a file was renamed long
      // after it was written; a claim as its claimer wrote it was renamed into place as soon as written.
      const stat = await fs.stat(file).catch(() => null);
      if (!stat) return null;
      if (stat.ctimeMs - stat.mtimeMs > ttlMs / 2) claimedAtMs = Math.max(claimedAtMs, stat.ctimeMs);
    }
    if (nowMs - claimedAtMs <= ttlMs) return null;
    return this.returnClaim(file, taskId, nowMs, task.claim?.token ?? null);
  }

  /**
   * Moves a claim back to pending. The claim is first renamed to a name of our own, so a late ack or another
   * recycler finds it gone, then rewritten without the old claim fields, then renamed into pending/.
   */
  private async returnClaim(
    file: string,
    taskId: string,
    nowMs: number,
    judged: string | null,
  ): Promise<DispatchTask | null> {
    const own = path.join(this.claimsDir, `${taskId}${JSON_SUFFIX}.returning-${randomHex(4)}`);
    try {
      await fs.rename(file, own);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
    const task = await this.readTask(own, taskId);
    if (!task) return null;
    if ((task.claim?.token ?? null) !== judged) {
      // Its claimer wrote its claim between our look and our rename: a live claim, put back as it was.
      await fs.rename(own, file);
      return null;
    }
    const back: DispatchTask = { ...task, claim: null, enqueued_at_ms: nowMs };
    // Without its new enqueue time the task would be expired at once as unclaimed for too long: it stays
    // here, to be given back by a later pass.
    await this.rewriteReturning(own, back, () => false);
    return (await this.moveToPending(own, back)) ? back : null;
  }

  /**
   * Replaces the content of a claim being given back (`own`, a name of ours alone in claims/) with `back`,
   * in place: the task stays one file under one name. True when written; false when `tolerate(error)` says
   * the old content may stay; any other error is thrown, with the file as it was.
   */
  private async rewriteReturning(
    own: string,
    back: DispatchTask,
    tolerate: (err: unknown) => boolean,
  ): Promise<boolean> {
    try {
      await writeFileAtomic(own, serialize(back));
      return true;
    } catch (err) {
      if (tolerate(err)) return false;
      throw err;
    }
  }

  /**
   * The last step of giving a claim back: one rename of `own` to pending/, so that at every instant the task
   * is in exactly one place, never in both (a returner dying half-way once left a copy in each) nor in
   * neither. A pending task already there under the ID (a leftover of an earlier version) is not replaced.
   */
  private async moveToPending(own: string, task: DispatchTask): Promise<boolean> {
    const pending = this.pendingFile(task.task_id);
    if (await pathExists(pending)) {
      this.report({
        path: own,
        error: 'a pending task with the same ID exists; the claim was not given back',
      });
      return false;
    }
    await fs.rename(own, pending);
    this.index.set(task.task_id, indexEntry(task));
    return true;
  }

  /**
   * Moves the task files of ours that an earlier version left under data/distributed into data/cluster, once
   * per process. Claims move first, so no task is seen in neither place. A file there that is not ours by
   * name and content (Dagu's) stays as it is.
   */
  private adoptLegacy(): Promise<void> {
    if (!this.adopts) return Promise.resolve();
    this.adopted ??= (async () => {
      const isOurName = (name: string) =>
        name.endsWith(JSON_SUFFIX) && isValidTaskId(name.slice(0, -JSON_SUFFIX.length));
      const isOurs = (name: string, text: string) =>
        taskFileError(parseJsonOrUndefined(text), name.slice(0, -JSON_SUFFIX.length)) === null;
      for (const [from, to] of [
        [this.legacy.claims, this.claimsDir],
        [this.legacy.pending, this.pendingDir],
      ] as const) {
        const moved = await adoptLegacyFiles({ from, to, isOurName, isOurs });
        if (moved.length > 0) {
          this.logger.info('Moved dispatch tasks of an earlier version to their new directory', {
            from,
            to,
            count: moved.length,
          });
        }
      }
    })().catch((err: unknown) => {
      this.adopted = null; // tried again at the next call
      throw err;
    });
    return this.adopted;
  }

  /** Brings the index up to the pending directory's listing, reading only files it has not seen. */
  private async refreshIndex(): Promise<void> {
    await this.adoptLegacy();
    const listed = new Set(await taskIdsIn(this.pendingDir));
    for (const id of this.index.keys()) if (!listed.has(id)) this.index.delete(id);
    for (const id of this.corrupt) if (!listed.has(id)) this.corrupt.delete(id);
    const unseen = [...listed].filter((id) => !this.index.has(id) && !this.corrupt.has(id));
    await runConcurrently(unseen, FILE_READ_CONCURRENCY, async (id) => {
      const result = await readJsonFile<DispatchTask>(this.pendingFile(id), (v) => taskFileError(v, id));
      if (result.kind === 'ok') this.index.set(id, indexEntry(result.value));
      else if (result.kind === 'corrupt') {
        this.corrupt.add(id);
        this.report({ path: result.path, error: result.error });
      }
    });
  }

  /**
   * A task file's task, null when it is missing (claimed or deleted meanwhile) or corrupt (reported). A
   * pending task has no claim, whatever its file says (a claim given back by `release` keeps its fields).
   */
  private async readTask(file: string, taskId: string): Promise<DispatchTask | null> {
    const result = await readJsonFile<DispatchTask>(file, (v) => taskFileError(v, taskId));
    if (result.kind === 'corrupt') this.report({ path: result.path, error: result.error });
    if (result.kind !== 'ok') return null;
    const pending = path.dirname(file) === this.pendingDir;
    return { ...result.value, claim: pending ? null : (result.value.claim ?? null) };
  }

  private pendingFile(taskId: string): string {
    return path.join(this.pendingDir, `${taskId}${JSON_SUFFIX}`);
  }

  private claimFile(taskId: string): string {
    return path.join(this.claimsDir, `${taskId}${JSON_SUFFIX}`);
  }
}

/** A write that failed for want of space or a writable file system: a rename may still go through. */
function isSpaceError(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO' || code === 'EROFS';
}

/** The task ID of a task file's name (`<task_id>.json`, or a claim being given back); '' for any other. */
function taskIdOfName(name: string): string {
  const returning = RETURNING_PATTERN.exec(name);
  const taskId = returning
    ? returning[1]
    : name.endsWith(JSON_SUFFIX)
      ? name.slice(0, -JSON_SUFFIX.length)
      : '';
  return isValidTaskId(taskId) ? taskId : '';
}

/** Task IDs of the `<task_id>.json` files of a directory; temp and foreign files are ignored. */
async function taskIdsIn(dir: string): Promise<string[]> {
  return (await readdirOrEmpty(dir))
    .filter((name) => name.endsWith(JSON_SUFFIX))
    .map((name) => name.slice(0, -JSON_SUFFIX.length))
    .filter(isValidTaskId)
    .sort();
}

function serialize(task: DispatchTask): string {
  return JSON.stringify(task) + '\n';
}

function indexEntry(task: IndexEntry): IndexEntry {
  return {
    task_id: task.task_id,
    worker_selector: task.worker_selector,
    hold_until_ms: task.hold_until_ms,
    enqueued_at_ms: task.enqueued_at_ms,
  };
}

const OPERATIONS = new Set(['start', 'retry', 'resume']);
const isTime = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

/** Why a parsed task file cannot be used, or null when it can. */
function taskFileError(value: unknown, taskId: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.version !== 1) return `unknown version ${JSON.stringify(v.version)}`;
  const id = parseTaskId(taskId);
  if (v.task_id !== taskId || !id) return 'task_id does not match the file name';
  if (v.run_id !== id.runId || v.attempt !== id.attempt)
    return 'run_id or attempt does not match the file name';
  if (typeof v.dag_name !== 'string') return 'dag_name is missing';
  if (typeof v.operation !== 'string' || !OPERATIONS.has(v.operation))
    return 'operation is missing or unknown';
  if (!isLabels(v.worker_selector)) return 'worker_selector is not a map of strings';
  if (typeof v.dag !== 'object' || v.dag === null) return 'dag is missing';
  if (!Array.isArray(v.params)) return 'params is not a list';
  if (!isTime(v.enqueued_at_ms)) return 'enqueued_at_ms is not a number';
  if (v.hold_until_ms !== null && !isTime(v.hold_until_ms)) return 'hold_until_ms is not a number';
  if (v.claim !== undefined && v.claim !== null) {
    const c = v.claim as Record<string, unknown>;
    if (typeof c.worker_id !== 'string' || typeof c.token !== 'string' || !isTime(c.claimed_at_ms)) {
      return 'claim is incomplete';
    }
  }
  return null;
}
