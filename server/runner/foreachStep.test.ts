import { describe, expect, it } from 'vitest';
import { resolveValue } from '../core/dag/values';
import type { ForeachItemStatus, ForeachSpec } from '../core/types';
import { testContext } from './actions/actionTestContext';
import { runForeach, type BodyResult, type ForeachHooks } from './foreachStep';

function spec(over: Partial<ForeachSpec> = {}): ForeachSpec {
  return {
    items: ['a', 'b'],
    items_text: null,
    as: 'item',
    key: null,
    max_concurrent: 10,
    steps: [],
    collect: [],
    ...over,
  };
}

interface Recorded {
  ran: Array<Record<string, unknown>>;
  updates: ForeachItemStatus[][];
  hooks: ForeachHooks;
}

/** Hooks resolving with the real resolver (params as given); bodies decided by `body`. */
function hooks(
  body: (item: Readonly<Record<string, unknown>>, signal: AbortSignal) => Promise<BodyResult> = async () => ({
    ok: true,
    collect: (t) => t,
  }),
  params: Record<string, string> = {},
): Recorded {
  const rec: Recorded = {
    ran: [],
    updates: [],
    hooks: {
      resolve: (text, item) => resolveValue(text, { params, foreach: item ?? undefined }, 'value'),
      resolveItems: (items) => items,
      runBody: (_index, item, signal) => {
        rec.ran.push({ ...item });
        return body(item, signal);
      },
      onItems: (items) => rec.updates.push(items.map((i) => ({ ...i }))),
    },
  };
  return rec;
}

describe('foreach items and keys', () => {
  it('gives each body its index and key as text and the item under its alias', async () => {
    const r = hooks();
    const ctx = testContext();
    const res = await runForeach(spec({ items: [{ id: 'x' }, 7], as: 'thing' }), ctx, r.hooks);
    expect(res.error).toBeNull();
    expect(r.ran).toEqual([
      { index: '0', key: '0', thing: { id: 'x' } },
      { index: '1', key: '1', thing: 7 },
    ]);
  });

  it('resolves the key with the item in scope and refuses a duplicate before any body runs', async () => {
    const r = hooks();
    const res = await runForeach(
      spec({ items: [{ n: 'p' }, { n: 'q' }, { n: 'p' }], key: '${foreach.item.n}' }),
      testContext(),
      r.hooks,
    );
    expect(res.error).toBe('duplicate foreach item key "p" at item 2; first seen at item 0');
    expect(r.ran).toEqual([]);
  });

  it('refuses an empty key and a key whose item field is missing', async () => {
    const empty = await runForeach(
      spec({ items: [{ n: '' }], key: '${foreach.item.n}' }),
      testContext(),
      hooks().hooks,
    );
    expect(empty.error).toBe('foreach.key resolved to an empty string for item 0');
    const missing = await runForeach(
      spec({ items: [{ n: 'a' }], key: '${foreach.item.m}' }),
      testContext(),
      hooks().hooks,
    );
    expect(missing.error).toBe(
      'foreach.key resolved with unresolved reference for item 0: ${foreach.item.m}',
    );
  });

  it('parses items written as text as a JSON array, and names what is wrong otherwise', async () => {
    const r = hooks(undefined, { list: '["u", {"v": 1}]' });
    expect(
      (await runForeach(spec({ items: null, items_text: '${params.list}' }), testContext(), r.hooks)).error,
    ).toBeNull();
    expect(r.ran.map((x) => x.item)).toEqual(['u', { v: 1 }]);
    for (const [text, why] of [
      ['a,b', 'foreach.items string must resolve to a JSON array: '],
      ['{"a": 1}', 'foreach.items string must resolve to a JSON array: got object'],
      ['null', 'foreach.items string must resolve to a JSON array: got null'],
    ]) {
      const res = await runForeach(spec({ items: null, items_text: text }), testContext(), hooks().hooks);
      expect(res.exitCode).toBe(1);
      expect(res.error!.startsWith(why)).toBe(true);
    }
  });

  it('refuses more than 1,000 items at run time', async () => {
    const many = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i));
    const r = hooks();
    const res = await runForeach(spec({ items: null, items_text: many }), testContext(), r.hooks);
    expect(res.error).toBe('foreach expansion produced 100000 items; maximum is 1000');
    expect(r.ran).toEqual([]);
  });
});

describe('foreach bodies and the summary', () => {
  it('prints the summary as Dagu writes it, leaving out empty outputs and errors', async () => {
    const r = hooks(async (item) =>
      item.item === 'b'
        ? { ok: false, state: 'failed', error: 'step "s" failed: exit code 3' }
        : { ok: true, collect: (t) => t.replace('X', String(item.item)) },
    );
    const ctx = testContext();
    const res = await runForeach(
      spec({ items: ['a', 'b', 'c'], collect: [['out', 'got X & more']] }),
      ctx,
      r.hooks,
    );
    expect(res.error).toBe('one or more foreach item bodies failed');
    expect(ctx.out.text()).toBe(
      '{"summary":{"total":3,"succeeded":2,"failed":1},"items":[' +
        '{"index":0,"key":"0","status":"succeeded","outputs":{"out":"got a \\u0026 more"}},' +
        '{"index":1,"key":"1","status":"failed","error":"step \\"s\\" failed: exit code 3"},' +
        '{"index":2,"key":"2","status":"succeeded","outputs":{"out":"got c \\u0026 more"}}],' +
        '"outputs":[{"out":"got a \\u0026 more"},{"out":"got c \\u0026 more"}]}',
    );
    expect(r.updates.at(-1)!.map((i) => [i.label, i.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'failed'],
      ['c', 'succeeded'],
    ]);
  });

  it('gives a succeeded item without collect an empty outputs entry', async () => {
    const ctx = testContext();
    await runForeach(spec({ items: ['a'] }), ctx, hooks().hooks);
    expect(ctx.out.text()).toBe(
      '{"summary":{"total":1,"succeeded":1,"failed":0},"items":[{"index":0,"key":"0","status":"succeeded"}],"outputs":[{}]}',
    );
  });

  it('fails an item whose collect leaves a reference unresolved', async () => {
    const ctx = testContext();
    const res = await runForeach(
      spec({ items: ['a'], collect: [['v', '${steps.x.outputs.y}']] }),
      ctx,
      hooks().hooks,
    );
    expect(res.error).toBe('one or more foreach item bodies failed');
    expect(ctx.out.text()).toContain(
      '"error":"foreach.collect.v resolved with unresolved reference: ${steps.x.outputs.y}"',
    );
  });

  it('runs at most max_concurrent bodies at once and labels keyed items by key', async () => {
    let running = 0;
    let peak = 0;
    const r = hooks(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((res) => setTimeout(res, 5));
      running--;
      return { ok: true, collect: (t) => t };
    });
    await runForeach(
      spec({
        items: [{ k: 'a' }, { k: 'b' }, { k: 'c' }, { k: 'd' }],
        key: '${foreach.item.k}',
        max_concurrent: 2,
      }),
      testContext(),
      r.hooks,
    );
    expect(peak).toBe(2);
    expect(r.updates.at(-1)!.map((i) => i.label)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('starts no further body once the step is stopped, and fails', async () => {
    const controller = new AbortController();
    const r = hooks(async () => {
      controller.abort();
      return { ok: false, state: 'aborted', error: 'aborted' };
    });
    const ctx = testContext({ signal: controller.signal });
    const res = await runForeach(spec({ items: ['a', 'b', 'c'], max_concurrent: 1 }), ctx, r.hooks);
    expect(r.ran).toHaveLength(1);
    expect(res.exitCode).toBe(1);
    expect(ctx.out.text()).toContain('"summary":{"total":3,"succeeded":0,"failed":3}');
  });
});
