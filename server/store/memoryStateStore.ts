// The state store in memory, for tests of the state actions and the runner.

import type { Clock } from '../core/ports';
import {
  compareBytes,
  nextStateEntry,
  preparePut,
  validateStateList,
  validateStateRef,
  type StateEntry,
  type StateListOptions,
  type StatePutOptions,
  type StateRef,
  type StateStore,
} from './stateStore';

export class MemoryStateStore implements StateStore {
  private readonly entries = new Map<string, StateEntry>();

  constructor(private readonly clock?: Pick<Clock, 'nowMs'>) {}

  async get(ref: StateRef): Promise<StateEntry | null> {
    validateStateRef(ref);
    const e = this.entries.get(idOf(ref));
    return e ? clone(e) : null;
  }

  async put(ref: StateRef, value: string, opts: StatePutOptions = {}): Promise<StateEntry> {
    const normalized = preparePut(ref, value, opts);
    const now = new Date(this.clock?.nowMs() ?? Date.now()).toISOString();
    const next = nextStateEntry(ref, normalized, this.entries.get(idOf(ref)) ?? null, opts, now);
    this.entries.set(idOf(ref), next);
    return clone(next);
  }

  async delete(ref: StateRef): Promise<boolean> {
    validateStateRef(ref);
    return this.entries.delete(idOf(ref));
  }

  async list(opts: StateListOptions): Promise<StateEntry[]> {
    validateStateList(opts);
    const out = [...this.entries.values()]
      .filter((e) => e.scope === opts.scope && e.namespace === opts.namespace)
      .filter((e) => e.key.startsWith(opts.keyPrefix))
      .sort((a, b) => compareBytes(a.key, b.key));
    return (opts.limit > 0 ? out.slice(0, opts.limit) : out).map(clone);
  }
}

function idOf(ref: StateRef): string {
  return JSON.stringify([ref.scope, ref.namespace, ref.key]);
}

function clone(e: StateEntry): StateEntry {
  return { ...e, updated_by: e.updated_by ? { ...e.updated_by } : null };
}
