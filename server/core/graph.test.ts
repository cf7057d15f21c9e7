import { describe, expect, it } from 'vitest';
import { blockedSteps, findCycle, nextRunnable, topoOrder } from './graph';
import type { RunnableStep } from './graph';
import type { StepState } from './types';

function step(name: string, depends: string[] = [], continueOnFailure = false): RunnableStep {
  return { name, depends, continue_on: { failure: continueOnFailure } };
}

const names = (steps: readonly { name: string }[] | null) => steps?.map((s) => s.name) ?? null;

// a -> (b, c) -> d
const diamond = [step('a'), step('b', ['a']), step('c', ['a']), step('d', ['b', 'c'])];
const chain = [step('one'), step('two', ['one']), step('three', ['two'])];

describe('findCycle', () => {
  it('finds no cycle in a chain, a diamond or steps without dependencies', () => {
    expect(findCycle(chain)).toBeNull();
    expect(findCycle(diamond)).toBeNull();
    expect(findCycle([step('x'), step('y')])).toBeNull();
  });

  it('names the steps of a cycle in depends-on order, starting from the one declared first', () => {
    const steps = [step('start'), step('a', ['c']), step('b', ['a']), step('c', ['b']), step('end', ['c'])];
    expect(findCycle(steps)).toEqual(['a', 'c', 'b']);
    // Found from a later step, the cycle still starts at its first-declared member.
    expect(findCycle([step('b', ['x']), step('x', ['a']), step('a', ['b'])])).toEqual(['b', 'x', 'a']);
  });

  it('reports a step that depends on itself as a one-step cycle', () => {
    expect(findCycle([step('a'), step('b', ['b'])])).toEqual(['b']);
  });

  it('ignores dependencies on names that are not steps', () => {
    expect(findCycle([step('a', ['ghost'])])).toBeNull();
  });
});

describe('topoOrder', () => {
  it('puts every step after the steps it depends on, keeping declaration order otherwise', () => {
    const steps = [step('d', ['b', 'c']), step('c', ['a']), step('b', ['a']), step('a')];
    expect(names(topoOrder(steps))).toEqual(['a', 'c', 'b', 'd']);
    expect(names(topoOrder([step('x'), step('y'), step('z')]))).toEqual(['x', 'y', 'z']);
  });

  it('returns null for a graph with a cycle', () => {
    expect(topoOrder([step('a', ['b']), step('b', ['a'])])).toBeNull();
  });
});

describe('nextRunnable', () => {
  it('starts with the roots: the first step of a chain, every independent step of a graph', () => {
    expect(names(nextRunnable(chain, {}))).toEqual(['one']);
    expect(names(nextRunnable([step('x'), step('y'), step('z', ['x'])], {}))).toEqual(['x', 'y']);
  });

  it('runs both branches of a diamond in parallel once the top succeeded', () => {
    expect(names(nextRunnable(diamond, { a: 'running' }))).toEqual([]);
    expect(names(nextRunnable(diamond, { a: 'succeeded' }))).toEqual(['b', 'c']);
  });

  it('waits for every dependency of the join step', () => {
    expect(names(nextRunnable(diamond, { a: 'succeeded', b: 'succeeded', c: 'retrying' }))).toEqual([]);
    expect(names(nextRunnable(diamond, { a: 'succeeded', b: 'succeeded', c: 'succeeded' }))).toEqual(['d']);
  });

  it('never offers a step that is already running or finished', () => {
    const states: Record<string, StepState> = { a: 'succeeded', b: 'running', c: 'failed' };
    expect(names(nextRunnable(diamond, states))).toEqual([]);
  });

  it('lets a failed dependency through only when it continues on failure', () => {
    const tolerant = [step('a', [], true), step('b', ['a'])];
    expect(names(nextRunnable(tolerant, { a: 'failed' }))).toEqual(['b']);
    expect(names(nextRunnable(chain, { one: 'failed' }))).toEqual([]);
  });

  it('does not let an aborted or skipped dependency through, even with continue_on failure', () => {
    const tolerant = [step('a', [], true), step('b', ['a'])];
    expect(names(nextRunnable(tolerant, { a: 'aborted' }))).toEqual([]);
    expect(names(nextRunnable(tolerant, { a: 'skipped' }))).toEqual([]);
  });

  it('offers no more steps than the free places under maxActive', () => {
    const wide = [step('a'), step('b'), step('c'), step('d')];
    expect(names(nextRunnable(wide, {}, { maxActive: 2 }))).toEqual(['a', 'b']);
    expect(names(nextRunnable(wide, { a: 'running', b: 'retrying' }, { maxActive: 3 }))).toEqual(['c']);
    expect(names(nextRunnable(wide, { a: 'running', b: 'running' }, { maxActive: 1 }))).toEqual([]);
  });
});

describe('blockedSteps', () => {
  it('blocks everything after a failed step of a chain', () => {
    expect(names(blockedSteps(chain, { one: 'failed' }))).toEqual(['two', 'three']);
  });

  it('blocks the join of a diamond when one branch failed, and leaves the other branch alone', () => {
    const states: Record<string, StepState> = { a: 'succeeded', b: 'failed' };
    expect(names(blockedSteps(diamond, states))).toEqual(['d']);
    expect(names(nextRunnable(diamond, states))).toEqual(['c']);
  });

  it('blocks the dependents of aborted and skipped steps', () => {
    expect(names(blockedSteps(chain, { one: 'aborted' }))).toEqual(['two', 'three']);
    expect(names(blockedSteps(chain, { one: 'succeeded', two: 'skipped' }))).toEqual(['three']);
  });

  it('does not block the dependents of a step that failed with continue_on failure', () => {
    const tolerant = [step('a', [], true), step('b', ['a']), step('c', ['b'])];
    expect(blockedSteps(tolerant, { a: 'failed' })).toEqual([]);
  });

  it('does not block while a dependency is still running or retrying', () => {
    expect(blockedSteps(chain, { one: 'running' })).toEqual([]);
    expect(blockedSteps(chain, { one: 'retrying' })).toEqual([]);
  });

  it('carries blocking down a chain declared in reverse order', () => {
    const reversed = [step('three', ['two']), step('two', ['one']), step('one')];
    expect(names(blockedSteps(reversed, { one: 'failed' }))).toEqual(['three', 'two']);
  });

  it('blocks a step whose dependency is not a step at all, so that the runner cannot wait forever', () => {
    expect(names(blockedSteps([step('a', ['ghost'])], {}))).toEqual(['a']);
  });
});
