import { describe, expect, it } from 'vitest';
import type { StepSpec, StepStatus } from '../core/types';
import { runGraph } from './runGraph';
import { stepOf } from './testSupport';

const fresh = (name: string): StepStatus => ({
  name,
  status: 'not_started',
  started_at: null,
  finished_at: null,
  exit_code: null,
  error: null,
  retry_count: 0,
  stdout: null,
  stderr: null,
  output: null,
});

describe('runGraph', () => {
  it('gates dependents of a failed step only once its run is over (continue_on settled)', async () => {
    const specs: StepSpec[] = [
      stepOf('flaky', 'x', { continue_on: { failure: false, output: ['WARN'] } }),
      stepOf('quick', 'x'),
      stepOf('after', 'x', { depends: ['flaky'] }),
    ];
    const steps = specs.map((s) => fresh(s.name));
    const settled = new Map<string, boolean>();
    let quickDone!: () => void;
    const quickFinished = new Promise<void>((r) => (quickDone = r));
    const ran: string[] = [];

    await runGraph({
      specs,
      steps,
      maxActive: 0,
      delayMs: 0,
      stop: new AbortController().signal,
      timedOut: () => false,
      // The verdict is known only after the run has read the step's log.
      continues: (spec) => settled.get(spec.name) ?? false,
      report: () => {},
      start: async (spec, status) => {
        ran.push(spec.name);
        status.status = 'running';
        if (spec.name === 'flaky') {
          // The step has failed; while its continue_on is being worked out, another step ends.
          status.status = 'failed';
          await quickFinished;
          await new Promise((r) => setTimeout(r, 20));
          settled.set('flaky', true);
          return;
        }
        status.status = 'succeeded';
        if (spec.name === 'quick') quickDone();
      },
    });

    expect(steps.map((s) => [s.name, s.status])).toEqual([
      ['flaky', 'failed'],
      ['quick', 'succeeded'],
      ['after', 'succeeded'],
    ]);
    expect(ran).toEqual(['flaky', 'quick', 'after']);
  });
});
