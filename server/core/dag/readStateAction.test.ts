import { describe, expect, it } from 'vitest';
import { parseDag } from './parseDag';

/** The step's action, or the errors of a one-step DAG whose step is `step` (YAML, indented under `- `). */
function load(step: string) {
  const text = `steps:\n  - id: s\n${step
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
  const r = parseDag(text, { file: '/srv/dags/state.yaml', defaultName: 'state' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), action: null };
  return { errors: [] as string[], action: r.dag.steps[0].action };
}

describe('state actions at load time', () => {
  it('keeps with as written for each operation', () => {
    expect(
      load(
        'action: state.set\nwith:\n  key: "${K}"\n  scope: custom\n  namespace: team\n  value: {a: [1, x]}\n  expected_version: "${steps.g.outputs.v}"\n  create_only: false',
      ).action,
    ).toEqual({
      kind: 'state',
      op: 'set',
      with: {
        key: '${K}',
        scope: 'custom',
        namespace: 'team',
        value: { a: [1, 'x'] },
        expected_version: '${steps.g.outputs.v}',
        create_only: false,
      },
    });
    expect(load('action: state.list').action).toEqual({ kind: 'state', op: 'list', with: {} });
    expect(load('action: state.diff\nwith: {key: k, value: null, update: false}').action).toEqual({
      kind: 'state',
      op: 'diff',
      with: { key: 'k', value: null, update: false },
    });
    expect(load('action: state.get\nwith: {key: k, default: 3, required: false}').action).toMatchObject({
      with: { key: 'k', default: 3, required: false },
    });
    expect(
      load('action: state.list\nwith: {prefix: a/, limit: 0, include_values: true}').action,
    ).toMatchObject({
      with: { prefix: 'a/', limit: 0, include_values: true },
    });
  });

  it('reads the legacy type: state with the operation in command', () => {
    expect(load('type: state\ncommand: GET\nconfig: {key: k}').action).toMatchObject({
      kind: 'state',
      op: 'get',
    });
    expect(load('type: state\nconfig: {key: k}').errors).toEqual([
      'steps[0].type: type: state needs the operation in command (get, set, delete, list, diff)',
    ]);
    expect(load('type: state\ncommand: put\nwith: {key: k}').errors).toEqual([
      'steps[0].command: unsupported state operation "put" (use get, set, delete, list, diff)',
    ]);
    expect(load('action: state').errors).toEqual([
      'steps[0].action: action state needs an operation: state.get, state.set, state.delete, state.list, state.diff',
    ]);
    expect(load('action: state.put').errors).toEqual([
      'steps[0].action: unknown action "state.put" (state has state.delete, state.diff, state.get, state.list, state.set)',
    ]);
  });

  it.each([
    ['action: state.get', 'steps[0].action: state.get needs with.key'],
    ['action: state.delete\nwith: {key: "  "}', 'steps[0].with.key: must not be blank'],
    ['action: state.set\nwith: {key: k}', 'steps[0].with: state.set needs with.value'],
    ['action: state.diff\nwith: {key: k}', 'steps[0].with: state.diff needs with.value'],
    ['action: state.get\nwith: {key: 5}', 'steps[0].with.key: must be a string, got a number 5'],
    [
      'action: state.get\nwith: {key: k, scope: run}',
      'steps[0].with.scope: must be one of dag, root_dag, global, custom, got "run"',
    ],
    ['action: state.list\nwith: {limit: -1}', 'steps[0].with.limit: must be at least 0, got -1'],
    ['action: state.list\nwith: {limit: "5"}', 'steps[0].with.limit: must be an integer, got a string "5"'],
    [
      'action: state.get\nwith: {key: k, required: "yes"}',
      'steps[0].with.required: must be true or false, got a string "yes"',
    ],
    [
      'action: state.set\nwith: {key: k, value: 1, expected_version: "v1"}',
      'steps[0].with.expected_version: must be an integer, or a text holding one or one whole ${...} reference, got "v1"',
    ],
    [
      'action: state.get\nwith: {key: k, ttl: 5}',
      'steps[0].with.ttl: unknown key "ttl" (allowed: scope, namespace, key, prefix, create_only, required, update, include_values, value, default, expected_version, limit)',
    ],
    [
      'action: state.get\nrun: echo\nwith: {key: k}',
      'steps[0].action: run cannot be used together with action',
    ],
  ])('refuses %j', (step, error) => {
    expect(load(step).errors, JSON.stringify(load(step).errors)).toContain(error);
  });
});
