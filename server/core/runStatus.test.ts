import { describe, expect, it } from 'vitest';
import { parseDag } from './dag/parseDag';
import { isoUtc, newRunStatus } from './runStatus';
import type { DagSpec } from './types';

function dag(text: string): DagSpec {
  const r = parseDag(text, { file: 'dags/d.yaml', defaultName: 'd' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.dag;
}

const input = (d: DagSpec) => ({
  dag: d,
  runId: 'r1',
  status: 'queued' as const,
  triggerType: 'manual' as const,
  scheduleTime: null,
  params: [],
  nowIso: '2026-11-30T01:15:00Z',
});

describe('newRunStatus', () => {
  it("records each step's depends as the DAG declares them", () => {
    const d = dag(
      'steps:\n  - name: a\n    command: "true"\n  - name: b\n    command: "true"\n' +
        '  - name: c\n    command: "true"\n    depends: [a, b]\n  - name: d\n    command: "true"\n    depends: []\n',
    );
    const steps = newRunStatus(input(d)).steps;
    expect(steps.map((s) => [s.name, s.depends])).toEqual([
      ['a', []],
      ['b', []],
      ['c', ['a', 'b']],
      ['d', []],
    ]);
  });

  it('records the chain the runner follows in a chain DAG', () => {
    const d = dag(
      'type: chain\nsteps:\n  - name: a\n    command: "true"\n  - name: b\n    command: "true"\n  - name: c\n    command: "true"\n',
    );
    expect(newRunStatus(input(d)).steps.map((s) => s.depends)).toEqual([[], ['a'], ['b']]);
  });

  it('copies the list, so a later change of the DAG object does not reach the record', () => {
    const d = dag(
      'type: chain\nsteps:\n  - name: a\n    command: "true"\n  - name: b\n    command: "true"\n',
    );
    const status = newRunStatus(input(d));
    d.steps[1].depends.push('x');
    expect(status.steps[1].depends).toEqual(['a']);
  });
});

describe('newRunStatus labels', () => {
  it("records the DAG's labels as the run's (Dagu's DAGRunStatus.Labels), and none when it has none", () => {
    const d = dag('labels:\n  Team: Data\n  Critical: ""\nsteps:\n  - name: a\n    command: "true"\n');
    const status = newRunStatus(input(d));
    expect(status.labels).toEqual(['team=data', 'critical']);
    d.labels!.push('later');
    expect(status.labels).toEqual(['team=data', 'critical']);
    expect(newRunStatus(input(dag('steps:\n  - name: a\n    command: "true"\n')))).not.toHaveProperty(
      'labels',
    );
  });
});

describe('isoUtc', () => {
  it('drops zero milliseconds and keeps others', () => {
    expect(isoUtc(Date.parse('2026-11-30T01:15:00Z'))).toBe('2026-11-30T01:15:00Z');
    expect(isoUtc(Date.parse('2026-11-30T01:15:00.250Z'))).toBe('2026-11-30T01:15:00.250Z');
  });
});
