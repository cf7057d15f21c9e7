import { describe, expect, it } from 'vitest';
import { orderStepsAsRun } from './stepOrder';

const names = (steps: Array<{ name: string }>) => steps.map((s) => s.name);

describe('orderStepsAsRun', () => {
  it('lists a chain as the chain, whatever order the record holds it in', () => {
    const steps = [
      { name: 'third', depends: ['second'] },
      { name: 'first', depends: [] },
      { name: 'second', depends: ['first'] },
    ];
    expect(names(orderStepsAsRun(steps))).toEqual(['first', 'second', 'third']);
  });

  it('lists a graph in waves: a step after the deepest step it waits for, declaration order inside a wave', () => {
    const steps = [
      { name: 'report', depends: ['extract', 'load'] },
      { name: 'extract', depends: [] },
      { name: 'load', depends: ['extract'] },
      { name: 'lint', depends: [] },
      { name: 'notify', depends: ['extract'] },
    ];
    expect(names(orderStepsAsRun(steps))).toEqual(['extract', 'lint', 'load', 'notify', 'report']);
  });

  it('lists the steps that became ready together before the steps that waited for them', () => {
    const steps = [
      { name: 'report', depends: ['fan'] },
      { name: 'fan', depends: ['call'] },
      { name: 'check', depends: ['prepare'] },
      { name: 'call', depends: ['prepare'] },
      { name: 'poll', depends: ['prepare'] },
      { name: 'prepare', depends: [] },
    ];
    expect(names(orderStepsAsRun(steps))).toEqual(['prepare', 'check', 'call', 'poll', 'fan', 'report']);
  });

  it('keeps the declared order of records written before steps carried depends', () => {
    const steps = [{ name: 'b' }, { name: 'a' }, { name: 'c' }];
    expect(names(orderStepsAsRun(steps))).toEqual(['b', 'a', 'c']);
  });

  it('keeps every step when the graph has a cycle', () => {
    const steps = [
      { name: 'a', depends: ['b'] },
      { name: 'b', depends: ['a'] },
      { name: 'c', depends: [] },
    ];
    expect(names(orderStepsAsRun(steps)).sort()).toEqual(['a', 'b', 'c']);
  });

  it('ignores a dependency on a step the record does not have', () => {
    const steps = [
      { name: 'b', depends: ['gone'] },
      { name: 'a', depends: null },
    ];
    expect(names(orderStepsAsRun(steps))).toEqual(['b', 'a']);
  });

  it('returns the same step objects, not copies', () => {
    const a = { name: 'a', depends: [], extra: 1 };
    expect(orderStepsAsRun([a])[0]).toBe(a);
  });
});
