// Each scheduled DAG's expected interval between runs (core/scheduleInterval.ts), for the alert "a DAG has not
// succeeded within its expected interval". Read from the DAG files at scrape time, re-parsing only files whose
// size or mtime changed and working the interval out again daily (it depends on the calendar). Working it out
// walks 168 slots through the cron library (tens of ms a DAG), so a scrape spends at most WORK_BUDGET_MS on
// it: with many DAGs the first scrapes after a start leave some out, and later scrapes fill them in.
// Suspended DAGs are left out: nothing is expected of them.

import { stat } from 'node:fs/promises';
import { expectedIntervalMs } from '../core/scheduleInterval';
import { DAY } from '../core/units';
import type { Clock } from '../core/ports';
import { listDagFiles, loadDag } from '../store/dagCatalog';
import type { SuspendFlags } from '../store/suspendFlags';

/** Time a scrape may spend parsing DAG files and working out intervals. */
export const WORK_BUDGET_MS = 250;

interface Entry {
  mtimeMs: number;
  size: number;
  name: string | null;
  intervalMs: number | null;
  computedAtMs: number;
}

export interface DagSchedules {
  /** Every DAG file's DAG name (valid files only). */
  names: string[];
  /** Expected interval in seconds of each scheduled DAG that is not suspended. */
  intervals: Map<string, number>;
}

export class ScheduleIntervals {
  private readonly entries = new Map<string, Entry>();
  private pending: Promise<DagSchedules> | null = null;

  constructor(
    private readonly dagsDir: string,
    private readonly suspendFlags: Pick<SuspendFlags, 'names'>,
    private readonly clock: Clock,
  ) {}

  /** The DAGs now; concurrent callers (the metrics of one scrape) share one read. */
  current(): Promise<DagSchedules> {
    this.pending ??= this.read().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async read(): Promise<DagSchedules> {
    const now = this.clock.nowMs();
    const deadlineMono = this.clock.monoMs() + WORK_BUDGET_MS;
    const [files, suspended] = await Promise.all([listDagFiles(this.dagsDir), this.suspendFlags.names()]);
    const seen = new Set<string>();
    const names: string[] = [];
    const intervals = new Map<string, number>();
    for (const { file, name: stem } of files) {
      seen.add(file);
      const entry = await this.entryOf(file, now, deadlineMono);
      if (entry === null) names.push(stem); // not read yet (out of time): named after its file meanwhile
      if (!entry?.name) continue;
      names.push(entry.name);
      if (entry.intervalMs !== null && !suspended.has(entry.name))
        intervals.set(entry.name, entry.intervalMs / 1000);
    }
    for (const file of this.entries.keys()) if (!seen.has(file)) this.entries.delete(file);
    return { names, intervals };
  }

  private async entryOf(file: string, now: number, deadlineMono: number): Promise<Entry | null> {
    const st = await stat(file).catch(() => null);
    if (!st) return null;
    const cached = this.entries.get(file);
    const same = cached !== undefined && cached.mtimeMs === st.mtimeMs && cached.size === st.size;
    if (same && now - cached.computedAtMs < DAY) return cached;
    // Out of time: an unchanged file keeps its interval until a later scrape; a new or changed one waits.
    if (this.clock.monoMs() >= deadlineMono) return same ? cached : null;
    const r = await loadDag(this.dagsDir, file);
    const entry: Entry = {
      mtimeMs: st.mtimeMs,
      size: st.size,
      name: r.ok ? r.dag.name : null,
      intervalMs: r.ok ? expectedIntervalMs(r.dag.schedule, now) : null,
      computedAtMs: now,
    };
    this.entries.set(file, entry);
    return entry;
  }
}
