import { describe, expect, it } from 'vitest';
import { parseDag } from '../../core/dag/parseDag';
import type { DagSpec } from '../../core/types';
import { describeStepWork, dryPlan } from './dryPlan';

function dag(yaml: string): DagSpec {
  const r = parseDag(yaml, { defaultName: 'plan', file: '/dags/plan.yaml' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.dag;
}

describe('dryPlan', () => {
  it('says which steps wait for an approval after their command', () => {
    const plan = dryPlan(
      dag('steps:\n  - name: review\n    run: echo ok\n    approval: { prompt: Go? }\n'),
      [],
    );
    expect(plan.ok && plan.lines.at(-1)).toBe('   1. review  run: echo ok  then waits for approval');
  });

  it('lists the steps in the order they would start, with what each runs and waits for', () => {
    const plan = dryPlan(
      dag(
        [
          'steps:',
          '  - name: last',
          '    depends: [first, mid]',
          '    run: echo done',
          '  - name: first',
          '    run: echo $X',
          '  - name: mid',
          '    depends: first',
          '    run: |',
          '      echo a',
          '      echo b',
          'handler_on:',
          '  failure:',
          '    run: echo failed',
          '',
        ].join('\n'),
      ),
      ['X=1'],
    );
    expect(plan).toEqual({
      ok: true,
      lines: [
        'Dry run of plan (/dags/plan.yaml): nothing is run and no run is recorded',
        'type: graph',
        'params: X=1',
        'steps, in the order they would start:',
        '   1. first  run: echo $X',
        '   2. mid    script: echo a (+1 lines)  after first',
        '   3. last   run: echo done  after first, mid',
        'handlers:',
        '  on failure: run: echo failed',
      ],
    });
  });

  it('refuses steps that wait for each other in a cycle (the loader refuses such a file first)', () => {
    const spec = dag('steps:\n  - name: a\n    run: x\n  - name: b\n    depends: a\n    run: y\n');
    const cyclic = { ...spec, steps: [{ ...spec.steps[0], depends: ['b'] }, spec.steps[1]] };
    expect(dryPlan(cyclic, [])).toEqual({
      ok: false,
      error: 'DAG plan: its steps depend on each other in a cycle',
    });
  });
});

describe('describeStepWork for a template step', () => {
  it('names the action, the template first line and the output file', () => {
    const d = dag(
      [
        'steps:',
        '  - name: render',
        '    action: template.render',
        '    with:',
        '      template: "# {{ .title }}"',
        '      output: out/report.md',
        '      data: {title: T}',
        '  - name: by_ref',
        '    action: template.render',
        '    with: {template_ref: "${env.T}"}',
        '',
      ].join('\n'),
    );
    expect(describeStepWork(d.steps[0])).toBe('template.render: # {{ .title }} -> out/report.md');
    expect(describeStepWork(d.steps[1])).toBe('template.render: ${env.T}');
  });
});

describe('describeStepWork for an archive step', () => {
  it('names the operation, the source and the destination', () => {
    const d = dag(
      [
        'steps:',
        '  - name: pack',
        '    action: archive.create',
        '    with: {source: src, destination: out/pack.tar.gz}',
        '  - name: look',
        '    type: archive',
        '    command: list',
        '    config: {source: out/pack.tar.gz}',
        '',
      ].join('\n'),
    );
    expect(describeStepWork(d.steps[0])).toBe('archive.create: src -> out/pack.tar.gz');
    expect(describeStepWork(d.steps[1])).toBe('archive.list: out/pack.tar.gz');
  });
});
