// `foreach:` as Dagu's spec loader reads it (internal/spec/step.go parseForeachConfig), with its bad values.

import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from './parseDag';
import type { DagSpec, ForeachSpec } from '../types';

const yaml = (...rows: string[]) => rows.join('\n') + '\n';
const step = (...rows: string[]) => yaml('steps:', ...rows);

function parse(text: string): DagSpec {
  const r = parseDag(text, { file: '/srv/dags/loop.yaml', defaultName: 'loop' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

function errors(text: string): string[] {
  const r = parseDag(text, { file: '/srv/dags/loop.yaml', defaultName: 'loop' });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(
    (e) => formatDagError({ ...e, file: null }).replace('<input>:', '') + (e.kind ? ' [unsupported]' : ''),
  );
}

function foreachOf(dag: DagSpec, i = 0): ForeachSpec {
  const action = dag.steps[i].action;
  if (action?.kind !== 'foreach') throw new Error(`step ${i} is not a foreach step`);
  return action.foreach;
}

describe('foreach', () => {
  it('reads the items, alias, key, width, body graph and collect, with Dagu defaults', () => {
    const dag = parse(
      step(
        '  - name: each',
        '    foreach:',
        '      items: [{a: 1}, two]',
        '      as: row',
        '      key: ${foreach.row.a}',
        '      max_concurrent: 3',
        '      steps:',
        '        - {id: first, run: echo 1}',
        '        - {id: second, run: echo 2, depends: first}',
        '        - {id: third, run: echo 3}',
        '      collect: {zeta: z, alpha: a}',
      ),
    );
    const f = foreachOf(dag);
    expect(f).toMatchObject({
      items: [{ a: 1 }, 'two'],
      items_text: null,
      as: 'row',
      key: '${foreach.row.a}',
      max_concurrent: 3,
      collect: [
        ['alpha', 'a'],
        ['zeta', 'z'],
      ],
    });
    // A body is a graph: only written dependencies link its steps.
    expect(f.steps.map((s) => [s.name, s.depends])).toEqual([
      ['first', []],
      ['second', ['first']],
      ['third', []],
    ]);
    const plain = foreachOf(parse(step('  - foreach: {items: "${X}", steps: [echo a]}')));
    expect(plain).toMatchObject({
      items: null,
      items_text: '${X}',
      as: 'item',
      key: null,
      max_concurrent: 10,
    });
    expect(plain.steps[0].command).toEqual(['echo a']);
  });

  it('names body steps apart from the DAG steps and allows a foreach in a body', () => {
    const dag = parse(
      step(
        '  - {name: work, run: echo top}',
        '  - foreach:',
        '      items: [a]',
        '      steps:',
        '        - {name: work, run: echo body}',
        '        - foreach: {items: [b], steps: [echo inner]}',
      ),
    );
    const body = foreachOf(dag, 1).steps;
    expect(body.map((s) => s.name)).toEqual(['work', 'step_2']);
    expect(body[1].action?.kind).toBe('foreach');
  });

  it('refuses bad values, each with the field at fault', () => {
    const cases: Array<[string[], string]> = [
      [['    foreach: [a]'], 'steps[0].foreach: foreach must be a map, got a list'],
      [['    foreach: {steps: [echo]}'], 'steps[0].foreach.items: foreach.items is required'],
      [
        ['    foreach: {items: {a: 1}, steps: [echo]}'],
        'steps[0].foreach.items: foreach.items must be text or a list, got a map',
      ],
      [['    foreach: {items: [a]}'], 'steps[0].foreach.steps: foreach.steps must contain at least one step'],
      [
        ['    foreach: {items: [a], steps: []}'],
        'steps[0].foreach.steps: foreach.steps must contain at least one step',
      ],
      [
        ['    foreach: {items: [a], steps: echo}'],
        'steps[0].foreach.steps: foreach.steps must be a list, got a string',
      ],
      [
        ['    foreach: {items: [a], as: key, steps: [echo]}'],
        'steps[0].foreach.as: foreach.as "key" is reserved',
      ],
      [
        ['    foreach: {items: [a], as: 1x, steps: [echo]}'],
        'steps[0].foreach.as: foreach.as must match ^[A-Za-z][A-Za-z0-9_]*$, got "1x"',
      ],
      [
        ['    foreach: {items: [a], as: [x], steps: [echo]}'],
        'steps[0].foreach.as: must be a string, got a list',
      ],
      [
        ['    foreach: {items: [a], key: 3, steps: [echo]}'],
        'steps[0].foreach.key: must be a string, got a number',
      ],
      [
        ['    foreach: {items: [a], max_concurrent: 0, steps: [echo]}'],
        'steps[0].foreach.max_concurrent: must be greater than 0, got 0',
      ],
      [
        ['    foreach: {items: [a], max_concurrent: -4, steps: [echo]}'],
        'steps[0].foreach.max_concurrent: must be greater than 0, got -4',
      ],
      [
        ['    foreach: {items: [a], max_concurrent: 1.5, steps: [echo]}'],
        'steps[0].foreach.max_concurrent: must be an integer, got a number 1.5',
      ],
      [
        ['    foreach: {items: [a], max_concurrent: 1001, steps: [echo]}'],
        'steps[0].foreach.max_concurrent: max_concurrent must be an integer from 1 through 1000',
      ],
      [
        ['    foreach: {items: [a], collect: [x], steps: [echo]}'],
        'steps[0].foreach.collect: foreach.collect must be a map, got a list',
      ],
      [
        ['    foreach: {items: [a], collect: {1x: y}, steps: [echo]}'],
        'steps[0].foreach.collect.1x: foreach.collect names must match ^[A-Za-z][A-Za-z0-9_]*$, got "1x"',
      ],
      [
        ['    foreach: {items: [a], collect: {x: {y: 1}}, steps: [echo]}'],
        'steps[0].foreach.collect.x: must be a string, got a map',
      ],
      [
        ['    foreach: {items: [a], steps: [echo], fail_fast: true}'],
        'steps[0].foreach.fail_fast: unknown key',
      ],
      [
        ['    foreach: {items: [a], steps: [{run: echo, bogus: 1}]}'],
        'steps[0].foreach.steps[0].bogus: unknown key',
      ],
      [['    foreach: {items: [a], steps: [{run: echo, depends: nowhere}]}'], 'nowhere'],
      [
        ['    run: echo', '    foreach: {items: [a], steps: [echo]}'],
        'steps[0].run: foreach cannot be combined with "run" on the same step',
      ],
      [
        ['    call: other', '    foreach: {items: [a], steps: [echo]}'],
        'steps[0].call: foreach cannot be combined with "call" on the same step',
      ],
    ];
    for (const [rows, want] of cases) {
      const got = errors(step('  - name: each', ...rows)).join('\n');
      expect(got, rows.join(' ')).toContain(want);
    }
  });

  it('refuses 100,000 literal items at load, and takes a sub-DAG step in a body', () => {
    const many = `[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]`;
    expect(errors(step(`  - foreach: {items: ${many}, steps: [echo]}`)).join('\n')).toContain(
      'steps[0].foreach.items: foreach expands to at most 1000 items, got 100000',
    );
    const body = foreachOf(
      parse(step('  - foreach: {items: [a], steps: [{call: child}]}', '---', 'name: child', 'steps: [echo]')),
    ).steps;
    expect(body.map((b) => b.call)).toEqual(['child']);
  });

  it('refuses a foreach handler, and the foreach executor chosen by type', () => {
    expect(
      errors(
        yaml('handler_on:', '  success:', '    foreach: {items: [a], steps: [echo]}', 'steps:', '  - echo a'),
      ).join('\n'),
    ).toContain('a handler cannot be a foreach step');
    expect(errors(step('  - type: foreach')).join('\n')).toContain("write the step's foreach: key");
  });
});
