import { describe, expect, it } from 'vitest';
import type { StepStatus } from '@/components/apiTypes';
import { humanTaskFields, humanTaskInputs, openHumanTasks } from './humanTaskInputs';

const step = (status: StepStatus['status'], form: Record<string, unknown> | null): StepStatus => ({
  name: 'review',
  status,
  started_at: null,
  finished_at: null,
  exit_code: null,
  error: null,
  retry_count: 0,
  stdout: null,
  stderr: null,
  output: null,
  human_task: { id: 'review', prompt: 'Go?', form, max_size: 1024 },
});

const FORM = {
  type: 'object',
  properties: {
    environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'] },
    replicas: { type: 'integer', default: 2 },
    notify: { type: 'boolean', default: true },
  },
  required: ['environment'],
  additionalProperties: false,
};

describe('human task form', () => {
  it('lists only open tasks, and their fields with choices, defaults and required marks', () => {
    expect(openHumanTasks([step('succeeded', FORM), step('waiting', null)])).toHaveLength(1);
    const fields = humanTaskFields(step('waiting', FORM).human_task!);
    expect(fields.map((f) => [f.name, f.type, f.required, f.initial])).toEqual([
      ['environment', 'string', true, ''],
      ['replicas', 'integer', false, '2'],
      ['notify', 'boolean', false, 'true'],
    ]);
    expect(fields[0].choices).toEqual([
      { value: 'staging', label: 'staging' },
      { value: 'production', label: 'production' },
    ]);
    expect(humanTaskFields(step('waiting', null).human_task!)).toEqual([]);
  });

  it('types the filled-in values and leaves empty ones out', () => {
    const fields = humanTaskFields(step('waiting', FORM).human_task!);
    expect(humanTaskInputs(fields, { environment: 'production', replicas: '3', notify: 'false' })).toEqual({
      ok: true,
      inputs: { environment: 'production', replicas: 3, notify: false },
    });
    expect(humanTaskInputs(fields, { replicas: '' })).toEqual({ ok: true, inputs: { notify: true } });
    expect(humanTaskInputs(fields, { replicas: '2.5' })).toEqual({
      ok: false,
      error: 'replicas: expected a whole number',
    });
  });
});
