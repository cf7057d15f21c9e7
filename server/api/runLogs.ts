// Reading one step's stdout or stderr log of a run through the run log store (the data directory's files or
// the database's chunks). Which log a step has is read from the run's status record, and only a path that
// names this run's own log directory is taken: `<dag>/<run id>/<attempt>/<file>` under the logs root, or the
// same under the DAG's own `log_dir` (the DAG is read again to know where that is: a path in a status
// record alone never decides what may be read).

import path from 'node:path';
import type { RunStatus, StepStatus } from '../core/types';
import { dagLogRoot } from '../runner/logFiles';
import { loadDagByName } from '../store/dagCatalog';
import { LogOutsideError, RUN_LOG_NAME_PATTERN, type RunLogRef } from '../store/runLogStore';
import { BadRequestError, NotFoundError } from './errors';
import { getRun } from './runs';
import type { Services } from './services';

export type LogStream = 'stdout' | 'stderr';

/** A slice of a step log: the whole file, or its last `tailBytes` bytes. */
export interface StepLog {
  run_id: string;
  step: string;
  stream: LogStream;
  /** False while the step has not started (no log file yet). */
  exists: boolean;
  /** Size of the whole file in bytes. */
  size: number;
  /** True when `content` is only the end of the file. */
  truncated: boolean;
  content: string;
}

/** Longest slice returned at once; larger logs come back as their tail. */
export const MAX_LOG_BYTES = 1024 * 1024;

const STEP_NAME_LIMIT = 256;

export async function readRunLog(
  svc: Services,
  runId: string,
  step: string,
  stream: LogStream,
  opts: { tailBytes?: number } = {},
): Promise<StepLog> {
  if (stream !== 'stdout' && stream !== 'stderr') {
    throw new BadRequestError(`stream: ${JSON.stringify(String(stream))} must be stdout or stderr`);
  }
  assertStepName(step);
  const tail = opts.tailBytes ?? MAX_LOG_BYTES;
  if (!Number.isInteger(tail) || tail < 1) {
    throw new BadRequestError(`tail: ${JSON.stringify(String(opts.tailBytes))} must be a positive integer`);
  }
  const status = await getRun(svc, runId);
  const empty: StepLog = {
    run_id: runId,
    step,
    stream,
    exists: false,
    size: 0,
    truncated: false,
    content: '',
  };
  const ref = await stepLogRef(svc, status, step, stream);
  const stat = ref === null ? null : await withinLogs(svc.logs.stat(ref));
  if (ref === null || stat === null) return empty;
  const length = Math.min(stat.size, tail, MAX_LOG_BYTES);
  const content = await readBytes(svc, ref, stat.size - length, stat.size);
  return {
    ...empty,
    exists: true,
    size: stat.size,
    truncated: length < stat.size,
    // A tail may start inside a multi-byte character; the decoder replaces that fragment.
    content: content.toString('utf8'),
  };
}

/** Bytes `start` to `end` of a log, at most MAX_LOG_BYTES of them. */
async function readBytes(svc: Services, ref: RunLogRef, start: number, end: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  await withinLogs(
    (async () => {
      for await (const piece of svc.logs.read(ref, start, end)) parts.push(piece);
    })(),
  );
  return Buffer.concat(parts);
}

/** The store's refusal of a file outside its run's directory is the request's fault: a 400. */
export async function withinLogs<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof LogOutsideError) throw new BadRequestError(err.message);
    throw err;
  }
}

/**
 * Checks a step name from a request. It only picks a step of the run's status record, never a file (the
 * record's log paths are checked on their own), so a `/` is allowed, as in step names.
 */
export function assertStepName(step: string): void {
  // eslint-disable-next-line no-control-regex
  if (step === '' || step.length > STEP_NAME_LIMIT || /[\u0000-\u001f\u007f]/.test(step)) {
    throw new BadRequestError(`step: ${JSON.stringify(step)} is not a valid step name`);
  }
}

/**
 * The log of one step's stream in a run, as its status record names it: null when the step has not
 * written it (yet); NotFoundError for a step the run does not have; BadRequestError for a record whose
 * path is not a log in this run's own log directory.
 */
export async function stepLogRef(
  svc: Services,
  status: RunStatus,
  step: string,
  stream: LogStream,
): Promise<RunLogRef | null> {
  const stepStatus = findStep(status.steps, status.handlers, step);
  if (!stepStatus) throw new NotFoundError(`run ${status.run_id} has no step ${JSON.stringify(step)}`);
  const recorded = stepStatus[stream];
  if (!recorded) return null;
  if (!path.isAbsolute(recorded)) return refOf(status, recorded.split('/'), recorded);
  const root = await ownLogRoot(svc, status);
  const rel = root === null ? null : path.relative(root, recorded);
  if (rel === null || rel.startsWith('..') || path.isAbsolute(rel)) throw outside(recorded);
  return { ...refOf(status, rel.split(path.sep), recorded), log_root: root! };
}

/** `<dag>/<run id>/<attempt>/<name>` of this run, as a ref; anything else is refused. */
function refOf(status: RunStatus, parts: string[], recorded: string): RunLogRef {
  const [dag, run, attempt, name] = parts;
  if (
    parts.length !== 4 ||
    dag !== status.dag_name ||
    run !== status.run_id ||
    !/^[1-9][0-9]{0,8}$/.test(attempt) ||
    !RUN_LOG_NAME_PATTERN.test(name)
  ) {
    throw outside(recorded);
  }
  return { dag_name: dag, run_id: run, attempt: Number(attempt), name };
}

/** The DAG's own `log_dir` as its file says now; null when it has none or is gone. */
async function ownLogRoot(svc: Services, status: RunStatus): Promise<string | null> {
  const loaded = await loadDagByName(svc.config.paths.dags_dir, status.dag_name).catch(() => null);
  if (!loaded?.ok) return null;
  return dagLogRoot(loaded.dag, svc.config, svc.env);
}

function outside(recorded: string): BadRequestError {
  return new BadRequestError(`log path ${JSON.stringify(recorded)} is outside the logs directory`);
}

function findStep(
  steps: StepStatus[],
  handlers: Partial<Record<string, StepStatus>>,
  name: string,
): StepStatus | undefined {
  return steps.find((s) => s.name === name) ?? Object.values(handlers).find((h) => h?.name === name);
}
