// The scheduling loop of a run's steps, as Dagu 2.x runs its graph: a step starts once its dependencies let
// it (see gateStep), at most `maxActive` at once, with `delayMs` after each start; a step that can never run
// is marked aborted or skipped at once, and that spreads. A failure does not stop unrelated branches. After a
// stop nothing new starts; after the DAG timeout every step that has not started is aborted.

import type { StepSpec, StepStatus } from '../core/types';
import { gateStep, type DependencyView } from './runOutcome';
import { abortableSleep } from './abortableSleep';

export interface RunGraphOptions {
  specs: readonly StepSpec[];
  /** The steps' statuses, updated in place, in `specs` order. */
  steps: StepStatus[];
  /** 0 = no limit. */
  maxActive: number;
  delayMs: number;
  /** Aborted when the run stops (stop request, cancel) or times out. */
  stop: AbortSignal;
  /** True once the run's deadline passed: steps not started are then aborted rather than left. */
  timedOut(): boolean;
  /** Whether a failed step's `continue_on` lets its dependents run. */
  continues(spec: StepSpec, status: StepStatus): boolean;
  /** Runs one step to its end (preconditions, retries, repeats); marks it `running` synchronously. */
  start(spec: StepSpec, status: StepStatus): Promise<void>;
  report(): void;
}

/** Runs the graph until no step runs and none can start. */
export async function runGraph(o: RunGraphOptions): Promise<void> {
  const byName = new Map(o.specs.map((spec, i) => [spec.name, { spec, status: o.steps[i] }]));
  const running = new Map<string, Promise<string>>();
  const view = (name: string): DependencyView | null => {
    const entry = byName.get(name);
    if (!entry) return null;
    // A step is over for its dependents only when its run is: its status may read `failed` a moment
    // before the run has read its stdout log for `continue_on.output`.
    if (running.has(name))
      return { spec: entry.spec, status: { ...entry.status, status: 'running' }, continues: false };
    const continues = entry.status.status === 'failed' && o.continues(entry.spec, entry.status);
    return { spec: entry.spec, status: entry.status, continues };
  };

  for (;;) {
    let changed = false;
    // Blocked steps first, repeatedly, so that an abort or skip spreads down chains in one pass. After a
    // stop (not a timeout) Dagu no longer looks at dependents: they stay not_started.
    const stopped = o.stop.aborted && !o.timedOut();
    for (let again = !stopped; again;) {
      again = false;
      for (const { spec, status } of byName.values()) {
        if (status.status !== 'not_started') continue;
        const deps = spec.depends.map(view);
        if (deps.some((d) => d === null)) {
          block(
            status,
            'aborted',
            `depends on unknown step ${JSON.stringify(spec.depends.find((d) => !byName.has(d)))}`,
          );
          again = changed = true;
          continue;
        }
        const gate = gateStep(deps as DependencyView[]);
        if (gate.kind === 'blocked') {
          block(status, gate.state, gate.reason);
          again = changed = true;
        }
      }
    }
    if (o.stop.aborted && o.timedOut()) {
      for (const { status } of byName.values()) {
        if (status.status === 'not_started') {
          block(status, 'aborted', 'run timed out');
          changed = true;
        }
      }
    }
    if (changed) o.report();

    if (!o.stop.aborted) {
      const ready = [...byName.values()].filter(
        ({ spec, status }) =>
          status.status === 'not_started' &&
          gateStep(spec.depends.map(view) as DependencyView[]).kind === 'ready',
      );
      const next = ready[0];
      if (next && (o.maxActive <= 0 || running.size < o.maxActive)) {
        const name = next.spec.name;
        running.set(
          name,
          o
            .start(next.spec, next.status)
            .catch((err) => markRunnerError(next.status, err))
            .then(() => name),
        );
        // Dagu waits after each start before it starts another or looks at a finished step.
        if (o.delayMs > 0) await abortableSleep(o.delayMs, o.stop);
        continue;
      }
    }
    if (running.size === 0) return;
    running.delete(await Promise.race(running.values()));
  }
}

function block(status: StepStatus, state: 'aborted' | 'skipped', reason: string): void {
  status.status = state;
  status.skip_reason = reason;
  status.error = state === 'aborted' && reason === 'upstream failed' ? reason : status.error;
}

/** A bug in the runner must end the step, not hang the graph or crash the run. */
export function markRunnerError(s: StepStatus, err: unknown): void {
  s.status = 'failed';
  s.error = `runner error: ${err instanceof Error ? err.message : String(err)}`;
}
