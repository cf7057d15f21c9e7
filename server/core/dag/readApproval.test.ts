import { describe, expect, it } from 'vitest';
import { parseDag } from './parseDag';

/** The steps of a DAG text, or its errors as `field: message`. */
function load(text: string) {
  const r = parseDag(text, { file: '/srv/dags/a.yaml', defaultName: 'a' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), steps: [] };
  return { errors: [] as string[], steps: r.dag.steps };
}

describe('step approvals at load time', () => {
  it('read prompt, input, required and rewind_to (an id becomes the step name)', () => {
    const r = load(`steps:
  - name: build
    id: b
    run: make
  - name: review
    run: echo ready
    depends: [build]
    approval:
      prompt: Ship it?
      input: [TICKET, NOTE]
      required: [TICKET]
      rewind_to: b
`);
    expect(r.errors).toEqual([]);
    expect(r.steps[1].approval).toEqual({
      prompt: 'Ship it?',
      input: ['TICKET', 'NOTE'],
      required: ['TICKET'],
      rewind_to: 'build',
    });
    expect(r.steps[0].approval).toBeUndefined();
  });

  it('takes an empty approval map, and rewind_to naming the step itself', () => {
    const r = load('steps:\n  - name: a\n    run: "true"\n    approval: { rewind_to: a }\n');
    expect(r.errors).toEqual([]);
    expect(r.steps[0].approval).toEqual({ prompt: '', input: [], required: [], rewind_to: 'a' });
  });

  it('refuses required fields outside input, unknown keys and wrong types', () => {
    expect(
      load('steps:\n  - name: a\n    run: "true"\n    approval: { input: [X], required: [Y] }\n').errors,
    ).toEqual(['steps[0].approval.required: required field "Y" is not in input list']);
    expect(load('steps:\n  - name: a\n    run: "true"\n    approval: { ttl: 3 }\n').errors[0]).toMatch(/ttl/);
    expect(load('steps:\n  - name: a\n    run: "true"\n    approval: { input: X }\n').errors[0]).toMatch(
      /must be a list/,
    );
    expect(load('steps:\n  - name: a\n    run: "true"\n    approval: yes\n').errors[0]).toMatch(
      /must be a map/,
    );
  });

  it('refuses a rewind_to that is missing or not upstream', () => {
    expect(load('steps:\n  - name: a\n    run: "true"\n    approval: { rewind_to: nope }\n').errors).toEqual([
      'steps[0].approval.rewind_to: step a approval.rewind_to references non-existent step nope',
    ]);
    expect(
      load(`steps:
  - name: a
    run: "true"
  - name: b
    run: "true"
    depends: []
    approval: { rewind_to: a }
`).errors,
    ).toEqual([
      'steps[1].approval.rewind_to: step b approval.rewind_to must reference the step itself or an upstream dependency',
    ]);
  });

  it('refuses approvals on handlers, in foreach bodies, and with a DAG worker_selector', () => {
    expect(
      load('handler_on:\n  exit:\n    run: "true"\n    approval: {}\nsteps:\n  - run: "true"\n').errors[0],
    ).toMatch(/a handler cannot have an approval/);
    expect(
      load(
        'steps:\n  - name: each\n    foreach:\n      items: [1, 2]\n      steps:\n        - run: "true"\n          approval: {}\n',
      ).errors.join('\n'),
    ).toMatch(/a foreach body step cannot have an approval/);
    expect(load('worker_selector: { zone: a }\nsteps:\n  - run: "true"\n    approval: {}\n').errors).toEqual([
      'worker_selector: DAG with approval steps cannot be dispatched to workers',
    ]);
  });
});
