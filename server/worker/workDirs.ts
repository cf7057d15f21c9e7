// Where a worker keeps the runs it executes (`<work_dir>/<worker id>/runs/<run id>/<attempt>`, logs in
// `logs/` under it), and the clean-up of run directories nobody has touched for a day. They are kept after
// a run so operators can look at what a step left behind.

import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../core/ports';
import { errorText } from '../runner/statusReporter';

/** The directories of one attempt on a worker. */
export interface AttemptDirs {
  /** Working directory of the steps (unless a step sets `dir`). */
  dir: string;
  /** Local log directory of the attempt. */
  logDir: string;
  /** `logDir` relative to the worker's own directory: the `log_dir` of the statuses it reports. */
  logDirRelative: string;
}

/** A worker ID as one safe path segment. */
export function workerDirName(workerId: string): string {
  return workerId.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_') || '_';
}

/** `runId` must match RUN_ID_PATTERN (the caller checks), so it is a safe path segment. */
export function attemptDirs(workDir: string, workerId: string, runId: string, attempt: number): AttemptDirs {
  const relative = `runs/${runId}/${attempt}`;
  const dir = join(workDir, workerDirName(workerId), 'runs', runId, String(attempt));
  return { dir, logDir: join(dir, 'logs'), logDirRelative: `${relative}/logs` };
}

/**
 * Removes the run directories of every worker under `workDir` (IDs change with the pid) whose run directory,
 * attempt directories and log files are all older than `maxAgeMs`. Returns how many runs were removed.
 * Errors are logged and skipped: clean-up must never stop a worker from starting.
 */
export async function pruneWorkDirs(
  workDir: string,
  nowMs: number,
  maxAgeMs: number,
  logger: Logger,
): Promise<number> {
  let removed = 0;
  for (const worker of await subdirs(workDir)) {
    const runsDir = join(workDir, worker, 'runs');
    for (const run of await subdirs(runsDir)) {
      const runDir = join(runsDir, run);
      try {
        if (nowMs - (await newestMtimeMs(runDir)) <= maxAgeMs) continue;
        await rm(runDir, { recursive: true, force: true });
        removed += 1;
      } catch (err) {
        logger.warn('Cannot prune an old run directory', { dir: runDir, error: errorText(err) });
      }
    }
    // Directories of workers that are gone disappear once their last run does.
    await rmdir(runsDir).catch(() => {});
    await rmdir(join(workDir, worker)).catch(() => {});
  }
  if (removed > 0) logger.info('Pruned old run directories', { count: removed });
  return removed;
}

async function subdirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** A running step appends to its log files, so a live run always has something recent here. */
async function newestMtimeMs(runDir: string): Promise<number> {
  let newest = (await stat(runDir)).mtimeMs;
  for (const attempt of await subdirs(runDir)) {
    const attemptDir = join(runDir, attempt);
    const logDir = join(attemptDir, 'logs');
    newest = Math.max(newest, (await stat(attemptDir)).mtimeMs);
    const files = await readdir(logDir).catch(() => [] as string[]);
    for (const f of [logDir, ...files.map((n) => join(logDir, n))]) {
      const s = await stat(f).catch(() => null);
      if (s) newest = Math.max(newest, s.mtimeMs);
    }
  }
  return newest;
}
