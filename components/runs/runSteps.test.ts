import { describe, expect, it } from 'vitest';
import type { StepStatus } from '@/components/apiTypes';
import { defaultStep, handlerRows, rowToShow, runRows } from './runSteps';

function step(name: string, status: StepStatus['status'], depends: string[] = []): StepStatus {
  return {
    name,
    status,
    started_at: status === 'not_started' ? null : '2026-01-01T00:00:00Z',
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
    depends,
  };
}

const names = (rows: Array<{ step: { name: string }; label?: string }>) =>
  rows.map((r) => r.label ?? r.step.name);

describe('defaultStep', () => {
  it('shows the running step first, even when another one failed', () => {
    const steps = [step('a', 'failed'), step('b', 'running'), step('c', 'not_started')];
    expect(defaultStep(steps)?.name).toBe('b');
  });

  it('counts a step that is retrying as running', () => {
    expect(defaultStep([step('a', 'succeeded'), step('b', 'retrying')])?.name).toBe('b');
  });

  it('shows the failed step of a finished run', () => {
    expect(defaultStep([step('a', 'succeeded'), step('b', 'failed'), step('c', 'aborted')])?.name).toBe('b');
  });

  it('else the last step that ran, and none when nothing ran', () => {
    expect(defaultStep([step('a', 'succeeded'), step('b', 'skipped'), step('c', 'not_started')])?.name).toBe(
      'b',
    );
    expect(defaultStep([step('a', 'not_started')])).toBeUndefined();
  });
});

describe('handlerRows', () => {
  it('lists handlers in the order they run, whatever order the record holds them in', () => {
    const rows = handlerRows({
      exit: step('onExit', 'succeeded'),
      failure: step('onFailure', 'succeeded'),
      init: step('onInit', 'succeeded'),
    });
    expect(names(rows)).toEqual(['onInit', 'onFailure', 'onExit']);
  });

  it('says which handler a step with its own name is', () => {
    const rows = handlerRows({ failure: step('notify', 'failed'), success: undefined });
    expect(rows).toEqual([
      { step: expect.objectContaining({ name: 'notify' }), label: 'on failure: notify' },
    ]);
  });
});

describe('runRows and rowToShow', () => {
  const run = {
    steps: [step('load', 'not_started', ['extract']), step('extract', 'failed')],
    handlers: { failure: step('onFailure', 'running') },
  };

  it('lists the steps as the DAG runs them, then the handlers', () => {
    expect(names(runRows(run).rows)).toEqual(['extract', 'load', 'onFailure']);
  });

  it('shows the picked row, a handler included', () => {
    expect(rowToShow(runRows(run), 'load')?.step.name).toBe('load');
    expect(rowToShow(runRows(run), 'onFailure')?.label).toBe('onFailure');
  });

  it('falls back to the step worth looking at when nothing or an unknown name is picked', () => {
    expect(rowToShow(runRows(run), null)?.step.name).toBe('extract');
    expect(rowToShow(runRows(run), 'gone')?.step.name).toBe('extract');
  });

  it('shows the first row when no step ran, and nothing for a run without steps', () => {
    const fresh = { steps: [step('a', 'not_started'), step('b', 'not_started', ['a'])], handlers: {} };
    expect(rowToShow(runRows(fresh), null)?.step.name).toBe('a');
    expect(rowToShow(runRows({ steps: [], handlers: {} }), null)).toBeNull();
  });
});
