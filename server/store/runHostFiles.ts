// The stop channel of runs executed by a run host (server/cli/runHost.ts): one process running several runs,
// whose pid every one of them records. A signal to that pid would stop them all, so a stop of one run goes
// through files instead, under `<data_dir>/run-host/`:
// - `<run-id>.host` names the host process running the run (`{"pid":N}`), written before the run starts and
//   removed when it ends;
// - `<run-id>.stop` asks that host to stop the run; the host looks for such files a few times a second and
//   aborts only that run, as SIGTERM would abort a run in a process of its own.
// These are files of this host machine's processes (a stop is only ever sent to a run on this host), so they
// stay on the local data directory whatever the storage backend. Run IDs are checked names (core/names.ts).

import { mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assertRunId } from '../core/names';

const HOST_SUFFIX = '.host';
const STOP_SUFFIX = '.stop';

export function runHostDir(dataDir: string): string {
  return path.join(dataDir, 'run-host');
}

function fileOf(dataDir: string, runId: string, suffix: string): string {
  return path.join(runHostDir(dataDir), `${assertRunId(runId)}${suffix}`);
}

/**
 * Records that host process `pid` runs `runId`, clearing any stop request left over from an earlier attempt
 * (a stop is only requested after this record exists).
 */
export async function registerHostedRun(dataDir: string, runId: string, pid: number): Promise<void> {
  await mkdir(runHostDir(dataDir), { recursive: true });
  await unlinkIfThere(fileOf(dataDir, runId, STOP_SUFFIX));
  // Whole or not at all: a reader (a stop, another host's sweep) never sees a record without its pid.
  const file = fileOf(dataDir, runId, HOST_SUFFIX);
  const tmp = path.join(runHostDir(dataDir), `.${runId}.${pid}.tmp`);
  await writeFile(tmp, `${JSON.stringify({ pid })}\n`);
  await rename(tmp, file);
}

/** Forgets a hosted run that ended: its record and any stop request that came too late. */
export async function unregisterHostedRun(dataDir: string, runId: string): Promise<void> {
  await unlinkIfThere(fileOf(dataDir, runId, HOST_SUFFIX));
  await unlinkIfThere(fileOf(dataDir, runId, STOP_SUFFIX));
}

/** The pid of the run host running `runId`, or null when a process of its own runs it (or nothing does). */
export async function hostPidOf(dataDir: string, runId: string): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(fileOf(dataDir, runId, HOST_SUFFIX), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const pid = (JSON.parse(text) as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null; // half-written by a host that died while writing it: no live host runs the run
  }
}

/** Asks the run host running `runId` to stop it (the host reads it within a second). */
export async function requestHostedStop(
  dataDir: string,
  runId: string,
  signal: NodeJS.Signals,
): Promise<void> {
  await writeFile(fileOf(dataDir, runId, STOP_SUFFIX), `${signal}\n`);
}

/**
 * The runs among `runIds` whose stop was requested, with the signal asked for; their requests are removed.
 * One directory listing, however many runs the host has.
 */
export async function takeStopRequests(
  dataDir: string,
  runIds: ReadonlySet<string>,
): Promise<Array<{ runId: string; signal: NodeJS.Signals }>> {
  let names: string[];
  try {
    names = await readdir(runHostDir(dataDir));
  } catch {
    return [];
  }
  const out: Array<{ runId: string; signal: NodeJS.Signals }> = [];
  for (const name of names) {
    if (!name.endsWith(STOP_SUFFIX)) continue;
    const runId = name.slice(0, -STOP_SUFFIX.length);
    if (!runIds.has(runId)) continue;
    const file = path.join(runHostDir(dataDir), name);
    const text = await readFile(file, 'utf8').catch(() => '');
    await unlinkIfThere(file);
    out.push({ runId, signal: text.trim() === 'SIGINT' ? 'SIGINT' : 'SIGTERM' });
  }
  return out;
}

/**
 * Removes the records (and stop requests) of runs whose host process is gone: a host that died could not
 * remove its own. `alive` tells whether a pid names a live process on this machine. Returns the run IDs
 * swept. A live host's records are never touched, and a pid reused by another process only keeps a record.
 */
export async function sweepDeadHosts(dataDir: string, alive: (pid: number) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(runHostDir(dataDir));
  } catch {
    return [];
  }
  const swept: string[] = [];
  for (const name of names) {
    if (!name.endsWith(HOST_SUFFIX)) continue;
    const runId = name.slice(0, -HOST_SUFFIX.length);
    const pid = await hostPidOf(dataDir, runId).catch(() => undefined);
    // Unreadable or without a pid (never the case of a record being written: it appears whole, by rename).
    if (pid === undefined || pid === null || alive(pid)) continue;
    await unregisterHostedRun(dataDir, runId);
    swept.push(runId);
  }
  return swept;
}

async function unlinkIfThere(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
