// Load rules of Dagu's schema-backed params (upstream internal/spec/dparams*.go, schema.go) and of a step's
// output_schema (internal/spec/step_types.go), one test per rule.

import { describe, expect, it } from 'vitest';
import { resolveRunParams } from '../params';
import { formatDagError, parseDag } from './parseDag';
import type { DagSpec } from '../types';

const yaml = (...rows: string[]) => rows.join('\n') + '\n';

function dagOf(...rows: string[]): DagSpec {
  const r = parseDag(yaml(...rows, 'steps:', '  - id: s', '    run: "true"'), {
    file: '/d/x.yaml',
    defaultName: 'x',
  });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

function errorsOf(...rows: string[]): string[] {
  const r = parseDag(yaml(...rows), { file: '/d/x.yaml', defaultName: 'x' });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map((e) => `${e.field}: ${e.message}${e.kind ? ' [unsupported]' : ''}`);
}

const STEP = ['steps:', '  - id: s', '    run: "true"'];

describe('inline JSON Schema params', () => {
  const dag = () =>
    dagOf(
      'params:',
      '  type: object',
      '  properties:',
      '    region: {type: string, default: eu}',
      '    count: {type: integer, default: 3, maximum: 10}',
      '    tags: {type: array, default: [a]}',
      '    debug: {type: boolean}',
      '  required: [region]',
    );

  it('keeps the schema and the scalar defaults as named params, sorted', () => {
    const d = dag();
    expect(d.param_schema?.file).toBeNull();
    expect((d.param_schema?.schema as Record<string, unknown>).required).toEqual(['region']);
    expect(d.params).toEqual([
      { name: 'count', value: '3' },
      { name: 'region', value: 'eu' },
    ]);
  });

  it('lays a caller over the defaults, typed, and refuses positional values and bad types', () => {
    const d = dag();
    expect(resolveRunParams(d.params, [{ name: 'debug', value: 'TRUE' }], d.param_schema)).toEqual({
      ok: true,
      list: ['count=3', 'debug=true', 'region=eu'],
    });
    const pos = resolveRunParams(d.params, [{ name: null, value: 'x' }], d.param_schema);
    expect(pos.ok || pos.error).toMatch(/positional parameters are not supported for schema-backed params/);
    const bad = resolveRunParams(d.params, [{ name: 'count', value: 'many' }], d.param_schema);
    expect(bad.ok || bad.error).toBe('count: cannot coerce "many" to integer');
  });

  it('refuses properties that are not a map', () => {
    expect(errorsOf('params:', '  type: object', '  properties: [a]', ...STEP)).toEqual([
      'params.properties: inline JSON Schema properties must be a map keyed by parameter name, got a list',
    ]);
  });

  it('refuses a property name that is not a param name', () => {
    expect(
      errorsOf('params:', '  type: object', '  properties:', '    my-x: {type: string}', ...STEP)[0],
    ).toMatch(/"my-x" is not a valid parameter name/);
  });

  it('refuses a $ref to a remote URL: nothing is fetched', () => {
    const e = errorsOf(
      'params:',
      '  type: object',
      '  properties:',
      '    a: {$ref: "https://example.com/s.json"}',
      ...STEP,
    );
    expect(e[0]).toMatch(/points outside the schema; this product fetches no schema/);
  });

  it('refuses a huge schema', () => {
    const rows = ['params:', '  type: object', '  properties:'];
    const big = 'x'.repeat(2000);
    for (let i = 0; i < 600; i++) rows.push(`    p${i}: {type: string, description: ${big}}`);
    expect(errorsOf(...rows, ...STEP)[0]).toMatch(/characters as JSON; at most 1048576 are accepted/);
  });
});

describe('{schema, values} params', () => {
  it('keeps a schema file path and the values', () => {
    const d = dagOf('params:', '  schema: ./params.json', '  values:', '    region: us');
    expect(d.param_schema).toEqual({ schema: null, file: './params.json' });
    expect(d.params).toEqual([{ name: 'region', value: 'us' }]);
  });

  it('reads an inline object and a boolean schema with values', () => {
    expect(dagOf('params:', '  schema: {type: object}', '  values: {a: 1}').param_schema).toEqual({
      schema: { type: 'object' },
      file: null,
    });
    expect(dagOf('params:', '  schema: false', '  values: {}').param_schema).toEqual({
      schema: false,
      file: null,
    });
  });

  it('leaves maps that only look alike to the map form (Dagu keeps {schema: prod} a param)', () => {
    for (const rows of [
      ['params: {schema: prod}'],
      ['params: {schema: true}'],
      ['params: {schema: ./x.json, other: 1}'],
    ]) {
      const d = dagOf(...rows);
      expect(d.param_schema).toBeUndefined();
    }
  });

  it('refuses a schema URL with a not-supported reason', () => {
    expect(errorsOf('params:', '  schema: https://example.com/p.json', ...STEP)).toEqual([
      expect.stringMatching(
        /^params\.schema: Dagu's schema URLs are not supported by this product.*\[unsupported\]$/,
      ),
    ]);
  });

  it('refuses a schema that is not an object, a boolean or a path', () => {
    expect(errorsOf('params:', '  schema: [a]', '  values: {}', ...STEP)[0]).toMatch(
      /must be a file path, a JSON Schema object or a boolean, got a list/,
    );
    expect(errorsOf('params:', '  schema: "  "', '  values: {}', ...STEP)[0]).toMatch(/must not be empty/);
  });

  it('refuses positional values and values of the wrong type', () => {
    expect(errorsOf('params:', '  schema: {type: object}', '  values: "a b"', ...STEP)[0]).toMatch(
      /positional values are not supported for schema-backed params/,
    );
    expect(
      errorsOf(
        'params:',
        '  schema: {type: object, properties: {n: {type: number}}}',
        '  values: {n: x}',
        ...STEP,
      )[0],
    ).toMatch(/n: cannot coerce "x" to number/);
  });
});

describe('output_schema', () => {
  const stepRows = (...rows: string[]) => [
    'steps:',
    '  - id: s',
    '    run: echo {}',
    ...rows.map((r) => '    ' + r),
  ];

  it('keeps an object schema, a #-reference to one, a composition of objects and {}', () => {
    for (const schema of [
      '{type: object, required: [a]}',
      '{$ref: "#/$defs/r", $defs: {r: {type: object}}}',
      '{anyOf: [{type: object}, {type: object}]}',
      '{}',
    ]) {
      const r = parseDag(yaml(...stepRows(`output_schema: ${schema}`)), { file: null, defaultName: 'x' });
      expect(r.ok && r.dag.steps[0].output_schema).toBeTruthy();
    }
  });

  it('refuses a schema that is not an object, or does not describe an object', () => {
    expect(errorsOf(...stepRows('output_schema: schema.json'))).toEqual([
      'steps[0].output_schema: output_schema must be an inline JSON Schema object',
    ]);
    expect(errorsOf(...stepRows('output_schema: {type: string}'))).toEqual([
      'steps[0].output_schema: output_schema must resolve to an object schema',
    ]);
    expect(errorsOf(...stepRows('output_schema: {anyOf: [{type: object}, {type: string}]}'))[0]).toMatch(
      /must resolve to an object schema/,
    );
    expect(errorsOf(...stepRows('output_schema: {$ref: "http://x/s.json"}'))[0]).toMatch(
      /points outside the schema/,
    );
  });
});
