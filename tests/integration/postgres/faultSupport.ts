// What the fault tests read: a DAG's runs straight from the database, the slots a schedule had due, and the
// local ports of a process's TCP connections (to find its backends in pg_stat_activity).

import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';

export interface RunRow {
  runId: string;
  status: string;
  trigger: string | null;
  /** The slot of a scheduled or catch-up run, else null. */
  slotMs: number | null;
  /** When the instance that made the run built its first status (its own clock). */
  createdMs: number;
  /** When the run ended (its own process's clock), else null. */
  finishedMs: number | null;
  dispatchedBy: string | null;
  error: string | null;
  /** The latest attempt's whole status, for failure messages. */
  doc: unknown;
}

/** Every run of `dag` with its latest attempt's status, oldest slot first. */
export async function runsOf(pool: pg.Pool, schema: string, dag: string): Promise<RunRow[]> {
  const r = await pool.query<{ run_id: string; status: string; trigger_type: string | null; doc: unknown }>(
    `select r.run_id, r.status, r.trigger_type, a.status as doc
       from ${schema}.runs r join ${schema}.run_attempts a on a.run_id = r.run_id and a.attempt = r.latest_attempt
      where r.dag_name = $1`,
    [dag],
  );
  return r.rows
    .map((row) => {
      const doc = (typeof row.doc === 'string' ? JSON.parse(row.doc) : row.doc) as {
        schedule_time: string | null;
        created_at: string;
        finished_at: string | null;
        dispatched_by?: string | null;
        error: string | null;
      };
      return {
        runId: row.run_id,
        status: row.status,
        trigger: row.trigger_type,
        slotMs: doc.schedule_time ? Date.parse(doc.schedule_time) : null,
        createdMs: Date.parse(doc.created_at),
        finishedMs: doc.finished_at ? Date.parse(doc.finished_at) : null,
        dispatchedBy: doc.dispatched_by ?? null,
        error: doc.error,
        doc,
      };
    })
    .sort((a, b) => (a.slotMs ?? 0) - (b.slotMs ?? 0));
}

/** The slots of an every-`everyMs` schedule from `fromMs` to `toMs`, both included. */
export function slotsBetween(fromMs: number, toMs: number, everyMs: number): number[] {
  const out: number[] = [];
  for (let t = Math.ceil(fromMs / everyMs) * everyMs; t <= toMs; t += everyMs) out.push(t);
  return out;
}

/**
 * The local ports of the IPv4 TCP sockets process `pid` has open: its sockets' inodes from /proc/<pid>/fd,
 * looked up in the network namespace's table. PostgreSQL sees these as its backends' client ports.
 */
export function clientPortsOf(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  const ports: number[] = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !inodes.has(f[9])) continue;
    ports.push(parseInt(f[1].split(':')[1], 16));
  }
  return ports;
}

/** The files under `homes` whose path names `runId` (the run's own logs), for a failure message. */
export function runFiles(homes: readonly string[], runId: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.includes(runId)) out.push(`--- ${p}\n${readFileSync(p, 'utf8').slice(-4000)}`);
    }
  };
  for (const h of homes) {
    try {
      walk(h);
    } catch {
      /* removed meanwhile */
    }
  }
  return out.length > 0 ? out.join('\n') : `(no file of ${runId} under the homes)`;
}

/** What the step `a` of run `runId` printed, from its log under any of `homes` ('' when there is none). */
export function runStepOutput(homes: readonly string[], runId: string): string {
  for (const h of homes) {
    try {
      return readFileSync(path.join(h, 'logs', 'tick', runId, '1', 'a.out'), 'utf8');
    } catch {
      /* not this home */
    }
  }
  return '';
}
