// Names and paths of the distributed stores under DAGU_HOME/data/cluster: task IDs, worker IDs and the
// directory of each store. Every name is checked against its pattern before it becomes part of a path.
//
// Earlier versions kept these stores under data/distributed, where Dagu 2.x keeps its own dispatch tasks and
// worker heartbeats in directories of the same names (pending, claims, workers). Ours moved out so that a
// home shared with Dagu is never mixed; legacyDistributedDirs names the old places, from which the stores
// adopt the files that have our shape (see adoptLegacyFiles).

import path from 'node:path';
import { assertDagName, assertRunId, isValidRunId } from '../core/names';
import { WORKER_ID_PATTERN } from '../core/workerId';
import { formatMs13 } from './runList';

/** `<enqueued ms, 13 digits>-<run_id>-<attempt>`; the run ID may itself contain `-`, the attempt is last. */
export const TASK_ID_PATTERN = /^(\d{13})-([A-Za-z0-9_-]{1,64})-([1-9]\d{0,8})$/;

/** Attempts a task ID can carry (nine digits). */
export const MAX_TASK_ATTEMPT = 999_999_999;

/** Coordinator IDs name files too: the characters of a worker ID. */
export const COORDINATOR_ID_PATTERN = WORKER_ID_PATTERN;

/**
 * The registry ID of the coordinator serving on `port` of `host`: `<host>-<port>`, with characters a worker
 * ID may not hold replaced by `_`. The same coordinator restarted keeps its ID, so it replaces its own record.
 */
export function coordinatorIdOf(host: string, port: number): string {
  const suffix = `-${port}`;
  const safeHost = host.replace(/[^A-Za-z0-9_.@-]/g, '_').slice(0, 128 - suffix.length) || 'host';
  return `${safeHost}${suffix}`;
}

/** Thrown when a coordinator ID that would become part of a path does not match COORDINATOR_ID_PATTERN. */
export class InvalidCoordinatorIdError extends Error {
  constructor(readonly value: string) {
    super(
      `invalid coordinator ID ${JSON.stringify(value)}: use 1 to 128 letters, digits, "_", ".", "@" or "-"`,
    );
    this.name = 'InvalidCoordinatorIdError';
  }
}

export function isValidCoordinatorId(value: unknown): value is string {
  return typeof value === 'string' && COORDINATOR_ID_PATTERN.test(value);
}

export function assertCoordinatorId(value: string): string {
  if (!isValidCoordinatorId(value)) throw new InvalidCoordinatorIdError(value);
  return value;
}

/** The ID of a task of `runId`/`attempt` enqueued at `enqueuedAtMs`: name order is FIFO order. */
export function taskIdOf(enqueuedAtMs: number, runId: string, attempt: number): string {
  return `${formatMs13(enqueuedAtMs)}-${runId}-${attempt}`;
}

/** The parts of a task ID, or null when the text is not one. */
export function parseTaskId(taskId: unknown): { enqueuedMs: number; runId: string; attempt: number } | null {
  if (typeof taskId !== 'string') return null;
  const match = TASK_ID_PATTERN.exec(taskId);
  if (!match || !isValidRunId(match[2])) return null;
  return { enqueuedMs: Number(match[1]), runId: match[2], attempt: Number(match[3]) };
}

export function isValidTaskId(taskId: unknown): taskId is string {
  return parseTaskId(taskId) !== null;
}

/** Directories of the distributed stores under `DAGU_HOME/data/cluster`. */
export interface DistributedDirs {
  root: string;
  pending: string;
  claims: string;
  workers: string;
  cancels: string;
  coordinators: string;
}

export function distributedDirs(dataDir: string): DistributedDirs {
  return dirsUnder(path.join(path.resolve(dataDir), 'cluster'));
}

/**
 * Where earlier versions kept the same stores: `DAGU_HOME/data/distributed`, which Dagu 2.x uses too. Only
 * read, to adopt files of ours; a file there of any other shape is Dagu's and is never touched.
 */
export function legacyDistributedDirs(dataDir: string): DistributedDirs {
  return dirsUnder(path.join(path.resolve(dataDir), 'distributed'));
}

function dirsUnder(root: string): DistributedDirs {
  return {
    root,
    pending: path.join(root, 'pending'),
    claims: path.join(root, 'claims'),
    workers: path.join(root, 'workers'),
    cancels: path.join(root, 'cancels'),
    coordinators: path.join(root, 'coordinators'),
  };
}

/** FIFO order of tasks: by enqueue time, then by ID (run ID and attempt break ties within a millisecond). */
export function compareTasks(
  a: { enqueued_at_ms: number; task_id: string },
  b: { enqueued_at_ms: number; task_id: string },
): number {
  if (a.enqueued_at_ms !== b.enqueued_at_ms) return a.enqueued_at_ms - b.enqueued_at_ms;
  return a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0;
}

/**
 * Checks the parts of a new task that become its ID or decide its order, so both stores refuse the same
 * tasks: InvalidNameError for a bad run ID or DAG name, RangeError naming the field for the rest.
 */
export function assertNewTask(task: {
  run_id: string;
  dag_name: string;
  attempt: number;
  enqueued_at_ms: number;
  hold_until_ms: number | null;
  worker_selector: Record<string, string>;
}): void {
  assertRunId(task.run_id);
  assertDagName(task.dag_name);
  if (!Number.isInteger(task.attempt) || task.attempt < 1 || task.attempt > MAX_TASK_ATTEMPT) {
    throw new RangeError(`task attempt: ${task.attempt} is not an attempt number`);
  }
  if (!Number.isFinite(task.enqueued_at_ms) || task.enqueued_at_ms < 0 || task.enqueued_at_ms >= 1e13) {
    throw new RangeError(`task enqueued_at_ms: ${task.enqueued_at_ms} is not a time in milliseconds`);
  }
  if (task.hold_until_ms !== null && !Number.isFinite(task.hold_until_ms)) {
    throw new RangeError(`task hold_until_ms: ${task.hold_until_ms} is not a time in milliseconds`);
  }
  if (!isLabels(task.worker_selector)) {
    throw new RangeError('task worker_selector: must map label names to string values');
  }
}

/** A plain object of string values (a selector or a worker's labels). */
export function isLabels(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/** A new claim token: unguessable, so only the worker that claimed a task can acknowledge it. */
export function newClaimToken(): string {
  // node:crypto is loaded here rather than at import: every command imports this module, few need it.
  return process.getBuiltinModule('node:crypto').randomBytes(16).toString('hex');
}
