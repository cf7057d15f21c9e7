import { describe, expect, it } from 'vitest';
import type { DagSpec } from './types';
import { isDistributed } from './dispatcherApi';

const dag = (over: Partial<DagSpec>) => ({ worker_selector: null, ...over }) as DagSpec;

describe('whether a DAG goes to the workers (Dagu ShouldDispatchToCoordinator)', () => {
  it('dispatches a DAG with a selector, and one without only in distributed mode', () => {
    expect(isDistributed(dag({ worker_selector: { zone: 'b' } }), 'local')).toBe(true);
    expect(isDistributed(dag({}), 'local')).toBe(false);
    expect(isDistributed(dag({}), 'distributed')).toBe(true);
  });

  it('keeps a DAG with worker_selector: local on this host, even in distributed mode', () => {
    expect(isDistributed(dag({ force_local: true }), 'distributed')).toBe(false);
    expect(isDistributed(dag({ force_local: true }), 'local')).toBe(false);
  });

  it("dispatches a call step's sub-run that has its own selector", () => {
    expect(isDistributed(dag({ force_local: true }), 'local', { gpu: 'true' })).toBe(true);
  });
});
