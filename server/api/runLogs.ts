// Reading one step's stdout or stderr log of a run, confined to the logs directory.

import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { StepStatus } from '../core/types';
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
  if (step === '' || step.length > STEP_NAME_LIMIT || /[\0/\\]/.test(step)) {
    throw new BadRequestError(`step: ${JSON.stringify(step)} is not a valid step name`);
  }
  const tail = opts.tailBytes ?? MAX_LOG_BYTES;
  if (!Number.isInteger(tail) || tail < 1) {
    throw new BadRequestError(`tail: ${JSON.stringify(String(opts.tailBytes))} must be a positive integer`);
  }
  const status = await getRun(svc, runId);
  const stepStatus = findStep(status.steps, status.handlers, step);
  if (!stepStatus) throw new NotFoundError(`run ${runId} has no step ${JSON.stringify(step)}`);
  const relative = stepStatus[stream];
  const empty: StepLog = {
    run_id: runId,
    step,
    stream,
    exists: false,
    size: 0,
    truncated: false,
    content: '',
  };
  if (!relative) return empty;

  let handle;
  try {
    // Resolve symlinks too: a link inside the logs directory must not lead a request outside it.
    const root = await realpath(svc.config.paths.log_dir);
    const file = confine(root, await realpath(confine(root, relative)));
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
