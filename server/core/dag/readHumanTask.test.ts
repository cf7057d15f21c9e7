import { describe, expect, it } from 'vitest';
import { parseDag } from './parseDag';

/** The action of a one-step DAG's step (YAML indented under `- `), or its errors as `field: message`. */
function load(step: string, extra = '') {
  const text = `${extra}steps:\n  - ${step
    .trim()
    .split('\n')
    .map((l, i) => (i === 0 ? l : `    ${l}`))
    .join('\n')}\n`;
  const r = parseDag(text, { file: '/srv/dags/h.yaml', defaultName: 'h' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), action: null };
  return { errors: [] as string[], action: r.dag.steps[0].action };
}

describe('human tasks at load time', () => {
  it('read the prompt as written and normalize the form', () => {
    expect(load('id: ack\naction: human.task\nwith: { prompt: "Go ${X}?" }').action).toEqual({
      kind: 'human',
      prompt: 'Go ${X}?',
      form: null,
    });
    const typed = load(
      'id: review\naction: human.task\nwith:\n  prompt: Pick\n  form:\n    type: object\n    properties:\n      env: { enum: [a, b] }\n      n: { type: integer, minimum: 1, default: 2 }\n    required: [env]',
    );
    expect(typed.errors).toEqual([]);
    expect(typed.action).toEqual({
      kind: 'human',
      prompt: 'Pick',
      form: {
        type: 'object',
        properties: {
          env: { type: 'string', enum: ['a', 'b'] },
          n: { type: 'integer', minimum: 1, default: 2 },
        },
        required: ['env'],
        additionalProperties: false,
      },
    });
  });

  it('refuse a step without an id, with process fields, or with a bad prompt or form, naming the field', () => {
    expect(load('name: r\naction: human.task\nwith: { prompt: Go }').errors).toEqual([
      'steps[0].action: a human.task step needs an explicit id (the completion command names it)',
    ]);
    expect(load('id: r\naction: human.task\ntimeout_sec: 0\nwith: { prompt: Go }').errors).toEqual([
      'steps[0].timeout_sec: a human.task step does not take timeout_sec',
    ]);
    expect(load('id: r\naction: human.task\nwith: { prompt: "  " }').errors).toEqual([
      'steps[0].with.prompt: must contain a non-blank text',
    ]);
    expect(load('id: r\naction: human.task\nwith: { prompt: Go, form: null }').errors).toEqual([
      'steps[0].with.form: must be a map (omit form for an acknowledgement)',
    ]);
    expect(
      load(
        'id: r\naction: human.task\nwith:\n  prompt: Go\n  form: { type: object, properties: { n: { type: integer, default: x } } }',
      ).errors,
    ).toEqual(['steps[0].with.form.properties.n.default: expected integer, got "x"']);
    expect(
      load(
        'id: r\naction: human.task\nwith:\n  prompt: Go\n  form: { type: object, properties: { o: { type: object } } }',
      ).errors,
    ).toEqual([
      'steps[0].with.form.properties.o.type: must be one of string, integer, number, boolean (nested objects and lists are not supported)',
    ]);
  });

  it('read handler_on.wait as the onWait handler', () => {
    const r = parseDag(
      'handler_on:\n  wait:\n    run: echo waiting\nsteps:\n  - id: r\n    action: human.task\n    with: { prompt: Go }\n',
      { file: '/srv/dags/h.yaml', defaultName: 'h' },
    );
    expect(r.ok && r.dag.handler_on.wait?.name).toBe('onWait');
  });

  it('refuse a human task in a handler', () => {
    const r = parseDag(
      'handler_on:\n  failure:\n    id: h\n    action: human.task\n    with: { prompt: Go }\nsteps:\n  - run: "false"\n',
      { file: '/srv/dags/h.yaml', defaultName: 'h' },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.message)).toContain('a handler cannot be a human.task step');
  });
});
