import { describe, expect, it } from 'vitest';
import { parseDag } from '../core/dag/parseDag';
import { DAG_TEMPLATES, dagTemplateText } from './dagTemplates';

describe('DAG templates', () => {
  it.each(DAG_TEMPLATES)("%s is a valid DAG under dagu validate's strict rules", (template) => {
    const r = parseDag(dagTemplateText(template), { file: 'new.yaml', defaultName: 'new', strict: true });
    expect(r.ok ? [] : r.errors).toEqual([]);
  });

  it('gives the scheduled template a schedule and the chained one three steps in a chain', () => {
    const scheduled = parseDag(dagTemplateText('scheduled'), { file: null, defaultName: 'n' });
    expect(scheduled.ok && scheduled.dag.schedule.map((s) => s.expression)).toEqual(['0 2 * * *']);
    const chained = parseDag(dagTemplateText('chained'), { file: null, defaultName: 'n' });
    expect(chained.ok && chained.dag.steps.map((s) => [s.name, s.depends])).toEqual([
      ['extract', []],
      ['transform', ['extract']],
      ['load', ['transform']],
    ]);
  });
});
