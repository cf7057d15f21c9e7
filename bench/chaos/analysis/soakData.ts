// Reads what the soak left behind: the run store, the steps' execution markers, the schedulers' logs (one
// file per process) and the role-change events of the data directory.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunStatus } from '../../../server/core/types';
import { FileRunStore } from '../../../server/store/fileRunStore';
import type { Incarnation } from '../supervisor';

/** One marker line a step wrote: `<dag> <schedule time> <run id> start|end <ms>`. */
export interface Execution {
  dag: string;
  scheduleTime: string;
  runId: string;
  phase: 'start' | 'end';
  atMs: number;
}

/** One JSON log line of a scheduler process, with the PID of the process that wrote it. */
export interface LogLine {
  pid: number;
  timeMs: number;
  msg: string;
  fields: Record<string, unknown>;
}

/** A role-change event of the data directory's event log. */
export interface RoleEvent {
  type: string;
  timeMs: number;
  data: Record<string, unknown>;
}

export async function readRuns(home: string): Promise<RunStatus[]> {
  const dataDir = path.join(home, 'data');
  const store = new FileRunStore({ dataDir, logDir: path.join(home, 'logs') });
  let ids: string[];
  try {
    ids = readdirSync(path.join(dataDir, 'runs'));
  } catch {
    return [];
  }
  const out: RunStatus[] = [];
  for (const id of ids) {
    const r = await store.readStatus(id).catch(() => null);
    if (r?.kind === 'ok') out.push(r.status);
  }
  return out;
}

export function readExecutions(markerFile: string): Execution[] {
  const out: Execution[] = [];
  for (const line of readFileSync(markerFile, 'utf8').split('\n')) {
    const [dag, scheduleTime, runId, phase, ms] = line.trim().split(' ');
    if (!ms || (phase !== 'start' && phase !== 'end')) continue;
    out.push({ dag, scheduleTime, runId, phase, atMs: Number(ms) });
  }
  return out;
}

export function readSchedulerLogs(incarnations: readonly Incarnation[]): LogLine[] {
  const out: LogLine[] = [];
  for (const inc of incarnations) {
    if (inc.kind !== 'scheduler') continue;
    let text: string;
    try {
      text = readFileSync(inc.logFile, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const { time, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
        out.push({ pid: inc.pid, timeMs: Date.parse(String(time)), msg: String(msg), fields });
      } catch {
        /* a line cut short by a kill -9 */
      }
    }
  }
  return out.sort((a, b) => a.timeMs - b.timeMs);
}

export function readRoleEvents(dataDir: string): RoleEvent[] {
  const dir = path.join(dataDir, 'events');
  const out: RoleEvent[] = [];
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  } catch {
    return out;
  }
  for (const f of files)
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const e = JSON.parse(line) as { type: string; time: string; data: Record<string, unknown> };
        if (e.type.startsWith('scheduler.lock.'))
          out.push({ type: e.type, timeMs: Date.parse(e.time), data: e.data });
      } catch {
        /* reported by the product's own readers */
      }
    }
  return out.sort((a, b) => a.timeMs - b.timeMs);
}
