// Reading one step's stdout or stderr log of a run, confined to the logs directory, or, for a DAG with its
// own `log_dir`, to that run's directory under it (the DAG is read again to know where that is: a path in a
// status record alone never decides what may be read).

import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { RunStatus, StepStatus } from '../core/types';
import { dagLogRoot } from '../runner/logFiles';
import { loadDagByName } from '../store/dagCatalog';
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
  const file = await stepLogFile(svc, status, step, stream);
  if (file === null) return empty;
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty;
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, tail, MAX_LOG_BYTES);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, size - length);
    return {
      ...empty,
      exists: true,
      size,
      truncated: length < size,
      // A tail may start inside a multi-byte character; the decoder replaces that fragment.
      content: buffer.subarray(0, bytesRead).toString('utf8'),
    };
  } finally {
    await handle.close();
  }
}

/** Checks a step name from a request: one path segment's worth of text, never a path. */
export function assertStepName(step: string): void {
  if (step === '' || step.length > STEP_NAME_LIMIT || /[\0/\\]/.test(step)) {
    throw new BadRequestError(`step: ${JSON.stringify(step)} is not a valid step name`);
  }
}

/**
 * The file of one step's stream in a run, confined like every log read: null when the step has not written
 * it (yet); NotFoundError for a step the run does not have.
 */
export async function stepLogFile(
  svc: Services,
  status: RunStatus,
  step: string,
  stream: LogStream,
): Promise<string | null> {
  const stepStatus = findStep(status.steps, status.handlers, step);
  if (!stepStatus) throw new NotFoundError(`run ${status.run_id} has no step ${JSON.stringify(step)}`);
  const relative = stepStatus[stream];
  if (!relative) return null;
  try {
    return path.isAbsolute(relative)
      ? await confineToDagLogDir(svc, status, relative)
      : await confineResolved(svc.config.paths.log_dir, relative);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** `relative` under `root`, symlinks resolved: a link inside must not lead a request outside. */
async function confineResolved(root: string, relative: string): Promise<string> {
  const real = await realpath(root);
  return confine(real, await realpath(confine(real, relative)));
}

/**
 * An absolute log path of a run record: allowed only inside `<log_dir>/<dag>/<run id>/` of the DAG's own
 * `log_dir` as its file says now (where the runner puts such a DAG's logs). A DAG that is gone or has no
 * `log_dir` allows nothing.
 */
async function confineToDagLogDir(svc: Services, status: RunStatus, file: string): Promise<string> {
  const outside = () => new BadRequestError(`log path ${JSON.stringify(file)} is outside the logs directory`);
  const loaded = await loadDagByName(svc.config.paths.dags_dir, status.dag_name).catch(() => null);
  if (!loaded?.ok) throw outside();
  const root = dagLogRoot(loaded.dag, svc.config, svc.env);
  if (root === null) throw outside();
  const runDir = path.join(root, status.dag_name, status.run_id);
  confine(runDir, file);
  return confineResolved(runDir, file);
}

function findStep(
  steps: StepStatus[],
  handlers: Partial<Record<string, StepStatus>>,
  name: string,
): StepStatus | undefined {
  return steps.find((s) => s.name === name) ?? Object.values(handlers).find((h) => h?.name === name);
}

/** Resolves a log path from a status record; a path that escapes the logs directory is refused. */
export function confine(logDir: string, relative: string): string {
  const root = path.resolve(logDir);
  const file = path.resolve(root, relative);
  const rel = path.relative(root, file);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new BadRequestError(`log path ${JSON.stringify(relative)} is outside the logs directory`);
  }
  return file;
}
