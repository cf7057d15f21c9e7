import { describe, expect, it } from 'vitest';
import type { ParallelSpec, StepSpec } from '../core/types';
import { childCalls, MAX_PARALLEL_ITEMS, splitItems } from './parallelItems';
import { resolveItemOnly } from './subDag';
import { stepOf } from './testSupport';

const callStep = (extra: Partial<StepSpec>): StepSpec => stepOf('fan', null, { call: 'child', ...extra });
const parallel = (p: Partial<ParallelSpec>): ParallelSpec => ({
  variable: null,
  items: [],
  max_concurrent: 10,
  ...p,
});
/** A resolver with a few scope variables, as the engine's would have them. */
const resolve = (scope: Record<string, string>) => (text: string, extra: Record<string, string>) =>
  resolveItemOnly(text, { ...scope, ...extra });

describe('splitItems', () => {
  it('reads a JSON array, keeping strings and writing other values as JSON', () => {
    expect(splitItems('["a", 1, {"k":"v"}, null]')).toEqual(['a', '1', '{"k":"v"}', 'null']);
  });

  it('splits by lines first, then by the most frequent separator, then by spaces', () => {
    expect(splitItems('a\n b \n\nc')).toEqual(['a', 'b', 'c']);
    expect(splitItems('a, b,c')).toEqual(['a', 'b', 'c']);
    expect(splitItems('a;b;c, d')).toEqual(['a', 'b', 'c, d']);
    expect(splitItems('  a   b c ')).toEqual(['a', 'b', 'c']);
  });

  it('keeps quoted words together and a lone JSON object whole', () => {
    expect(splitItems('"item one" "item two" three')).toEqual(['item one', 'item two', 'three']);
    expect(splitItems('{"a": 1, "b": 2}')).toEqual(['{"a": 1, "b": 2}']);
  });

  it('gives no items for an empty or blank value', () => {
    expect(splitItems('  ')).toEqual([]);
  });
});

describe('childCalls', () => {
  it('makes one child of a plain call with its resolved target and params', () => {
    const step = callStep({ call: '${WHO}', params: [{ name: 'A', value: '${X}' }] });
    const r = childCalls(step, resolve({ WHO: 'etl', X: '7' }));
    expect(r).toMatchObject({
      ok: true,
      calls: [{ target: 'etl', params: [{ name: 'A', value: '7' }], item: null }],
    });
  });

  it('makes the item the params when the step has none: a scalar positional, an object named', () => {
    const step = callStep({ parallel: parallel({ items: ['x', { REGION: 'eu', N: '2' }] }) });
    const r = childCalls(step, resolve({}));
    if (!r.ok) throw new Error(r.error);
    // Dagu marshals a map item as JSON (keys sorted) and reads it back as named params in that order.
    expect(r.calls.map((c) => c.params)).toEqual([
      [{ name: null, value: 'x' }],
      [
        { name: 'N', value: '2' },
        { name: 'REGION', value: 'eu' },
      ],
    ]);
    expect(r.calls.map((c) => c.item)).toEqual(['x', '{"N":"2","REGION":"eu"}']);
  });

  it("writes an object item of a variable as Go's encoder does: keys sorted, <, > and & escaped", () => {
    const step = callStep({ parallel: parallel({ variable: '${LIST}' }) });
    const r = childCalls(step, resolve({ LIST: '[{"b":"<x>","a":1}, 7, "s"]' }));
    if (!r.ok) throw new Error(r.error);
    expect(r.calls.map((c) => c.item)).toEqual(['{"a":1,"b":"\\u003cx\\u003e"}', '7', 's']);
  });

  it('puts ${ITEM} and ${ITEM.field} into the target and params', () => {
    const step = callStep({
      call: 'job-${ITEM.kind}',
      params: [{ name: 'ID', value: '${ITEM.id}' }],
      parallel: parallel({ items: [{ kind: 'a', id: '1' }] }),
    });
    const r = childCalls(step, resolve({}));
    expect(r).toMatchObject({ ok: true, calls: [{ target: 'job-a', params: [{ name: 'ID', value: '1' }] }] });
  });

  it('reads an unquoted positional word of string-form params again once filled in, as Dagu does', () => {
    // Dagu writes such a word unquoted into the child's params text (SmartEscape), so `A=1 B=2` coming from
    // ${ITEM.extra} gives the child two named params; named words and quoted values stay one param.
    const step = callStep({
      params: [
        { name: 'NAME', value: '${ITEM.name}' },
        { name: null, value: '${ITEM.extra}', split: true },
        { name: null, value: 'a b' },
      ],
      parallel: parallel({ items: [{ name: 'x y', extra: 'A=1 B="two words"' }] }),
    });
    const r = childCalls(step, resolve({}));
    if (!r.ok) throw new Error(r.error);
    expect(r.calls[0].params).toEqual([
      { name: 'NAME', value: 'x y' },
      { name: 'A', value: '1' },
      { name: 'B', value: 'two words' },
      { name: null, value: 'a b' },
    ]);
  });

  it('merges items that give the same child and params into one child run', () => {
    const step = callStep({ parallel: parallel({ variable: '${LIST}' }) });
    const r = childCalls(step, resolve({ LIST: 'a,b,a,c,b' }));
    if (!r.ok) throw new Error(r.error);
    expect(r.calls.map((c) => c.item)).toEqual(['a', 'b', 'c']);
  });

  it('keeps items apart when the step has params of its own, even if the params are the same', () => {
    const step = callStep({
      params: [{ name: 'FIXED', value: '1' }],
      parallel: parallel({ items: ['a', 'b'] }),
    });
    const r = childCalls(step, resolve({}));
    if (!r.ok) throw new Error(r.error);
    expect(r.calls).toHaveLength(2);
  });

  it('refuses zero items and more than the limit, with the count', () => {
    const none = childCalls(callStep({ parallel: parallel({ variable: '${LIST}' }) }), resolve({ LIST: '' }));
    expect(none).toEqual({ ok: false, error: 'parallel execution requires at least one item' });
    const many = Array.from({ length: MAX_PARALLEL_ITEMS + 1 }, (_, i) => i).join(',');
    const tooMany = childCalls(
      callStep({ parallel: parallel({ variable: '${LIST}' }) }),
      resolve({ LIST: many }),
    );
    expect(tooMany).toEqual({ ok: false, error: 'parallel: 1001 items exceed the limit of 1000 per step' });
  });

  it('turns a resolver error into the step error', () => {
    const r = childCalls(callStep({ call: '${NOPE}' }), () => {
      throw new Error('unknown reference ${NOPE}');
    });
    expect(r).toEqual({ ok: false, error: 'unknown reference ${NOPE}' });
  });
});
