import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../store/memoryStateStore';
import { testContext } from './actionTestContext';
import { runStateAction, type StateAccess, type StateOp } from './stateAction';

function setup() {
  const store = new MemoryStateStore();
  const access: StateAccess = { store, dagName: 'etl', rootDagName: 'main', runId: 'r1' };
  const run = async (op: StateOp, w: Record<string, unknown>) => {
    const ctx = testContext({ with: w, state: access, stepName: 'step' });
    const result = await runStateAction(op, ctx);
    const text = ctx.out.text();
    return { result, json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>), text };
  };
  return { store, run };
}

describe('state actions', () => {
  it('sets, gets, diffs, lists and deletes, printing what Dagu prints', async () => {
    const { run, store } = setup();
    expect((await run('get', { key: 'k' })).text).toBe(
      '{"operation":"get","scope":"dag","namespace":"etl","key":"k","found":false}\n',
    );
    expect((await run('get', { key: 'k', default: { b: 1, a: 2 } })).json).toMatchObject({
      found: false,
      value: { a: 2, b: 1 },
    });
    const set = await run('set', { key: 'k', value: { b: 1, a: '<x>' } });
    expect(set.text).toMatch(
      /^\{"operation":"set","scope":"dag","namespace":"etl","key":"k","version":1,"hash":"[0-9a-f]{64}","created":true\}\n$/,
    );
    const got = await run('get', { key: ' k ' });
    expect(got.text).toContain('"found":true,"version":1,');
    expect(got.text).toContain('"value":{"a":"\\u003cx\\u003e","b":1}}');
    expect((await store.get({ scope: 'dag', namespace: 'etl', key: 'k' }))!.updated_by).toEqual({
      dag_name: 'etl',
      dag_run_id: 'r1',
      step_name: 'step',
    });

    const same = await run('diff', { key: 'k', value: { a: '<x>', b: 1 } });
    expect(same.json).toMatchObject({ changed: false, foundPrevious: true, previousVersion: 1, version: 1 });
    const changed = await run('diff', { key: 'k', value: [1] });
    expect(changed.json).toMatchObject({ changed: true, previousVersion: 1, version: 2, current: [1] });
    const dry = await run('diff', { key: 'k', value: [2], update: false });
    expect(dry.json).toMatchObject({ changed: true, version: 2, previous: [1], current: [2] });
    const fresh = await run('diff', { key: 'new', value: 'v', update: false });
    expect(fresh.text).toBe(
      '{"operation":"diff","scope":"dag","namespace":"etl","key":"new","changed":true,"foundPrevious":false,"current":"v"}\n',
    );

    await run('set', { key: 'a/1', value: 1, scope: 'root_dag' });
    expect((await run('get', { key: 'a/1', scope: 'root_dag' })).json).toMatchObject({ namespace: 'main' });
    const list = await run('list', { include_values: true });
    expect((list.json!.entries as { key: string; value: unknown }[]).map((e) => [e.key, e.value])).toEqual([
      ['k', [1]],
    ]);
    expect((await run('list', { prefix: 'x' })).text).toBe(
      '{"operation":"list","scope":"dag","namespace":"etl","prefix":"x","entries":[]}\n',
    );
    expect((await run('delete', { key: 'k' })).json).toMatchObject({ deleted: true });
    expect((await run('delete', { key: 'k' })).json).toMatchObject({ deleted: false });
    expect((await run('set', { key: 'g', value: 1, scope: 'global' })).json).toMatchObject({
      namespace: '_',
    });
  });

  it('fails clearly on a conflict, a missing required key and bad input', async () => {
    const { run } = setup();
    await run('set', { key: 'k', value: 1 });
    expect((await run('set', { key: 'k', value: 2, expected_version: '0' })).result.error).toBe(
      'state: version conflict on dag/etl/k: expected version 0, but it is at version 1',
    );
    expect((await run('set', { key: 'k', value: 2, expected_version: 1 })).result.error).toBeNull();
    expect((await run('set', { key: 'k', value: 3, create_only: true })).result.error).toMatch(/create_only/);
    expect((await run('diff', { key: 'k', value: 3, expected_version: 7 })).result.error).toMatch(
      /expected version 7, but it is at version 2/,
    );
    expect((await run('get', { key: 'none', required: true })).result.error).toBe(
      'state: key "none" in dag namespace "etl" not found (required: true)',
    );
    expect((await run('set', { key: 'k', value: 1, expected_version: 'abc' })).result.error).toBe(
      'state: expected_version must resolve to an integer, got "abc"',
    );
    expect((await run('get', { key: '../x' })).result.error).toBe('state: invalid key "../x"');
    expect((await run('get', { key: 'k', scope: 'custom' })).result.error).toBe(
      'state: namespace is required for custom scope',
    );
    expect((await run('get', { key: 'k', scope: 'custom', namespace: 'a/b' })).result.error).toBe(
      'state: invalid namespace "a/b"',
    );
    expect((await run('list', { limit: -2 })).result.error).toMatch(
      /limit must be greater than or equal to zero/,
    );
    expect((await run('set', { key: 'big', value: 'x'.repeat(1 << 20) })).result.error).toMatch(
      /value too large: 1048578 bytes exceeds 1048576/,
    );
    const out = await run('get', { key: 'big' });
    expect(out.json).toMatchObject({ found: false });
  });

  it('fails with the reason where the process has no store', async () => {
    const ctx = testContext({ with: { key: 'k' }, state: { store: null, reason: 'not on a worker' } });
    expect((await runStateAction('get', ctx)).error).toBe('state: not on a worker');
    expect((await runStateAction('get', testContext({ with: { key: 'k' } }))).error).toMatch(
      /not configured/,
    );
  });
});
