// DAG definitions in memory, for tests of what reads and writes them (the mirror, push and pull, the editor).

import { assertDagName } from '../core/names';
import type { Clock } from '../core/ports';
import {
  assertDagWrite,
  newDagFileName,
  type DagDefinition,
  type DagDefinitions,
  type DagEntry,
  type DagWriteOptions,
  refuseWrite,
  type DeleteDagResult,
  type PutDagResult,
  type RenameDagResult,
} from './dagDefinitions';
import { dagVersion } from './dagFiles';

export class MemoryDagDefinitions implements DagDefinitions {
  private readonly dags = new Map<string, DagDefinition>();
  private counter = 0;

  constructor(private readonly clock: Pick<Clock, 'nowMs'> = { nowMs: () => Date.now() }) {}

  async list(): Promise<DagEntry[]> {
    return this.sorted().map(({ yaml: _yaml, ...entry }) => entry);
  }

  async get(name: string): Promise<DagDefinition | null> {
    assertDagName(name);
    const d = this.dags.get(name);
    return d ? { ...d } : null;
  }

  async getMany(names: readonly string[]): Promise<DagDefinition[]> {
    for (const n of names) assertDagName(n);
    const wanted = new Set(names);
    return this.sorted().filter((d) => wanted.has(d.name));
  }

  async revision(): Promise<string> {
    return String(this.counter);
  }

  async put(name: string, yaml: string, opts: DagWriteOptions = {}): Promise<PutDagResult> {
    assertDagWrite(name, yaml);
    const current = this.dags.get(name);
    const refusal = refuseWrite(current, opts.expectedVersion);
    if (refusal) return refusal;
    const version = dagVersion(yaml);
    if (current?.version === version) return { ok: true, outcome: 'unchanged', version };
    this.dags.set(name, {
      name,
      yaml,
      version,
      fileName: current?.fileName ?? newDagFileName(name, opts.fileName),
      ...this.stamp(opts),
    });
    return { ok: true, outcome: current ? 'updated' : 'created', version };
  }

  async rename(name: string, newName: string, opts: DagWriteOptions = {}): Promise<RenameDagResult> {
    assertDagName(name);
    assertDagName(newName);
    const current = this.dags.get(name);
    if (!current) return { ok: false, reason: 'missing' };
    const refusal = refuseWrite(current, opts.expectedVersion);
    if (refusal) return refusal;
    if (this.dags.has(newName)) return { ok: false, reason: 'taken' };
    const fileName = newName + current.fileName.slice(current.name.length);
    this.dags.delete(name);
    this.dags.set(newName, { ...current, name: newName, fileName, ...this.stamp(opts) });
    return { ok: true, fileName };
  }

  async delete(name: string, opts: DagWriteOptions = {}): Promise<DeleteDagResult> {
    assertDagName(name);
    const current = this.dags.get(name);
    if (!current) return { ok: false, reason: 'missing' };
    const refusal = refuseWrite(current, opts.expectedVersion);
    if (refusal) return refusal;
    this.dags.delete(name);
    this.counter++;
    return { ok: true };
  }

  private stamp(opts: DagWriteOptions): Pick<DagEntry, 'updatedAt' | 'updatedBy'> {
    this.counter++;
    return { updatedAt: new Date(this.clock.nowMs()).toISOString(), updatedBy: opts.by ?? null };
  }

  private sorted(): DagDefinition[] {
    return [...this.dags.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((d) => ({ ...d }));
  }
}
