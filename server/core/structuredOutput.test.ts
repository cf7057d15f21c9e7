// Evaluation of structured step outputs, with the expectations of upstream Dagu's
// internal/runtime/node_structured_output_test.go (rules, not its code).

import { describe, expect, it } from 'vitest';
import {
  decodeText,
  evaluateStdoutOutputs,
  evaluateStructuredOutput,
  selectValue,
  type OutputSources,
} from './structuredOutput';
import type { StdoutOutputsSpec, StructuredOutputEntry } from './types';

function sources(more: Partial<OutputSources> = {}): OutputSources {
  return {
    stdout: { ok: true, value: '' },
    stderr: { ok: true, value: '' },
    readFile: (path) =>
      Promise.resolve(
        path === 'meta.json'
          ? { ok: true, value: '{"artifact":{"path":"build/report.md"}}' }
          : path === 'meta.txt'
            ? { ok: true, value: '  release-ready \n' }
            : { ok: false, error: 'no such file' },
      ),
    resolveText: (t) => t.replace('${RELEASE}', 'v1.2.3'),
    selectExpression: () => Promise.resolve({ ok: false, error: 'no jq here' }),
    maxBytes: 1024 * 1024,
    ...more,
  };
}

const src = (from: 'stdout' | 'stderr' | 'file', more: Partial<StructuredOutputEntry> = {}) =>
  ({ kind: 'source', from, path: null, decode: null, select: null, ...more }) as StructuredOutputEntry;

async function one(entry: StructuredOutputEntry, more: Partial<OutputSources> = {}) {
  const r = await evaluateStructuredOutput([['result', entry]], sources(more));
  return r.ok ? { value: r.value.values.result } : { error: r.error };
}

describe('object-form output entries', () => {
  it('resolves literal strings, also inside lists and maps, and leaves shell syntax alone', async () => {
    expect(await one({ kind: 'value', value: '`date` $HOME ${RELEASE}' })).toEqual({
      value: '`date` $HOME v1.2.3',
    });
    expect(await one({ kind: 'value', value: { version: '${RELEASE}', ok: true, n: null } })).toEqual({
      value: { version: 'v1.2.3', ok: true, n: null },
    });
    expect(await one({ kind: 'value', value: ['${RELEASE}', 2] })).toEqual({ value: ['v1.2.3', 2] });
  });

  it('reads stdout and stderr trimmed, empty when nothing was printed', async () => {
    expect(await one(src('stdout'), { stdout: { ok: true, value: '  release-ready \n' } })).toEqual({
      value: 'release-ready',
    });
    expect(await one(src('stdout'))).toEqual({ value: '' });
    expect(await one(src('stderr'), { stderr: { ok: true, value: ' retry required\n' } })).toEqual({
      value: 'retry required',
    });
  });

  it('decodes JSON and YAML, with and without select', async () => {
    const json = { stdout: { ok: true as const, value: '{"version":"v1.2.3"}' } };
    expect(await one(src('stdout', { decode: 'json' }), json)).toEqual({ value: { version: 'v1.2.3' } });
    const yml = { stdout: { ok: true as const, value: 'artifact:\n  path: build/report.md\n' } };
    expect(await one(src('stdout', { decode: 'yaml', select: '.artifact.path' }), yml)).toEqual({
      value: 'build/report.md',
    });
    const err = { stderr: { ok: true as const, value: '{"warning":"retry required"}' } };
    expect(await one(src('stderr', { decode: 'json', select: '.warning' }), err)).toEqual({
      value: 'retry required',
    });
  });

  it('gives null for a select path that is missing (jq semantics), not an error', async () => {
    const json = { stdout: { ok: true as const, value: '{"a":1}' } };
    expect(await one(src('stdout', { decode: 'json', select: '.missing.deeper' }), json)).toEqual({
      value: null,
    });
  });

  it('fails on text that does not decode, naming the key', async () => {
    const bad = { stdout: { ok: true as const, value: 'not-json' } };
    expect((await one(src('stdout', { decode: 'json' }), bad)).error).toMatch(
      /^result: failed to decode JSON: /,
    );
    const badYaml = { stdout: { ok: true as const, value: 'foo: [bar' } };
    expect((await one(src('stdout', { decode: 'yaml' }), badYaml)).error).toMatch(
      /^result: failed to decode YAML: /,
    );
  });

  it('fails on a select that does not apply or does not parse', async () => {
    const json = { stdout: { ok: true as const, value: '{"version":"v1.2.3"}' } };
    expect((await one(src('stdout', { decode: 'json', select: '.version.major' }), json)).error).toBe(
      'result: failed to resolve select path ".version.major": the path does not apply to the decoded value',
    );
    expect((await one(src('stdout', { decode: 'json', select: '.artifact[' }), json)).error).toBe(
      'result: failed to resolve select path ".artifact[": no jq here',
    );
  });

  it('reads files (resolved path), trimmed as text, decoded with select', async () => {
    expect(await one(src('file', { path: 'meta.txt' }))).toEqual({ value: 'release-ready' });
    expect(await one(src('file', { path: 'meta.json', decode: 'json', select: '.artifact.path' }))).toEqual({
      value: 'build/report.md',
    });
    expect((await one(src('file', { path: 'missing.json' }))).error).toBe(
      'result: failed to read file "missing.json": no such file',
    );
  });

  it('fails when the stream it reads went over max_output_size', async () => {
    const over = { stdout: { ok: false as const, error: 'output exceeded maximum size limit of 8 bytes' } };
    expect((await one(src('stdout'), over)).error).toBe(
      'result: failed to capture stdout: output exceeded maximum size limit of 8 bytes',
    );
  });

  it('publishes compact JSON with sorted keys, within max_output_size', async () => {
    const entries: Array<[string, StructuredOutputEntry]> = [
      ['version', { kind: 'value', value: 'v1.2.3' }],
      ['meta', { kind: 'value', value: { channel: 'stable', approved: true } }],
    ];
    const r = await evaluateStructuredOutput(entries, sources());
    expect(r).toEqual({
      ok: true,
      value: {
        json: '{"meta":{"approved":true,"channel":"stable"},"version":"v1.2.3"}',
        values: { version: 'v1.2.3', meta: { channel: 'stable', approved: true } },
      },
    });
    const big = await evaluateStructuredOutput(
      [['payload', { kind: 'value', value: 'x'.repeat(64) }]],
      sources({ maxBytes: 32 }),
    );
    expect(big).toEqual({ ok: false, error: 'output exceeded maximum size limit of 32 bytes' });
  });
});

describe('stdout.outputs', () => {
  const spec = (more: Partial<StdoutOutputsSpec>): StdoutOutputsSpec => ({
    field: null,
    decode: null,
    select: null,
    fields: null,
    ...more,
  });
  const out = (text: string) => ({ stdout: { ok: true as const, value: text } });

  it('puts trimmed stdout under a field', async () => {
    expect(await evaluateStdoutOutputs(spec({ field: 'messageId' }), sources(out(' msg-123 \n')))).toEqual({
      ok: true,
      value: { messageId: 'msg-123' },
    });
  });

  it('publishes a decoded object as it is when there is no field (json by default)', async () => {
    expect(await evaluateStdoutOutputs(spec({}), sources(out('{"messageId":"m","accepted":true}')))).toEqual({
      ok: true,
      value: { messageId: 'm', accepted: true },
    });
    expect(await evaluateStdoutOutputs(spec({}), sources(out('[1,2]')))).toEqual({
      ok: false,
      error: 'decoded stdout outputs must be an object when field is omitted',
    });
    expect(
      await evaluateStdoutOutputs(
        spec({ field: 'id', decode: 'json', select: '.id' }),
        sources(out('{"id":7}')),
      ),
    ).toEqual({ ok: true, value: { id: 7 } });
  });

  it('maps fields from stdout and literals', async () => {
    const fields: Array<[string, StructuredOutputEntry]> = [
      ['messageId', src('stdout', { decode: 'json', select: '.id' })],
      ['status', { kind: 'value', value: 'accepted' }],
    ];
    expect(await evaluateStdoutOutputs(spec({ fields }), sources(out('{"id":"msg-123"}')))).toEqual({
      ok: true,
      value: { messageId: 'msg-123', status: 'accepted' },
    });
  });

  it('fails on stdout over the limit, on bad JSON, and on outputs over the limit', async () => {
    const over = { stdout: { ok: false as const, error: 'output exceeded maximum size limit of 8 bytes' } };
    expect(await evaluateStdoutOutputs(spec({ field: 'a' }), sources(over))).toEqual({
      ok: false,
      error: 'output exceeded maximum size limit of 8 bytes',
    });
    const bad = await evaluateStdoutOutputs(spec({}), sources(out('nope')));
    expect(bad.ok ? '' : bad.error).toMatch(/^stdout\.outputs: failed to decode JSON: /);
    expect(
      await evaluateStdoutOutputs(spec({ field: 'a' }), sources({ ...out('x'.repeat(40)), maxBytes: 32 })),
    ).toEqual({ ok: false, error: 'outputs exceeded maximum size limit of 32 bytes' });
  });
});

describe('decodeText and selectValue', () => {
  it('reads empty YAML as null and only the first YAML document', () => {
    expect(decodeText('', 'yaml')).toEqual({ ok: true, value: null });
    expect(decodeText('a: 1\n---\nb: 2\n', 'yaml')).toEqual({ ok: true, value: { a: 1 } });
    expect(decodeText('', 'json').ok).toBe(false);
  });

  it('walks plain paths itself and hands other jq expressions to the port', async () => {
    const port = {
      selectExpression: (v: unknown, e: string) => Promise.resolve({ ok: true as const, value: [e, v] }),
    };
    expect(await selectValue({ a: [1, 2] }, '.a[-1]', port)).toEqual({ ok: true, value: 2 });
    expect(await selectValue({ a: 1 }, '.', port)).toEqual({ ok: true, value: { a: 1 } });
    expect(await selectValue({ a: [1] }, '.a | length', port)).toEqual({
      ok: true,
      value: ['.a | length', { a: [1] }],
    });
  });
});
