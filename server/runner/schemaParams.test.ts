// Schema-backed params when a run starts (Dagu: validateSchemaMap with the schema's defaults applied), and a
// step's output_schema after it ends (Dagu: evaluateOutputSchema), checked with the real validator and files.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StepSpec, StepStatus } from '../core/types';
import { OutputCapture } from './outputCapture';
import { checkSchemaParams } from './schemaParams';
import { publishStructuredOutputs } from './stepOutputs';

const dir = mkdtempSync(join(tmpdir(), 'dagu-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dag = { file: join(dir, 'd.yaml'), working_dir: null };

const schema = {
  type: 'object',
  properties: {
    env: { type: 'string', enum: ['dev', 'prod'], default: 'dev' },
    port: { type: 'integer', default: 8080, maximum: 65535 },
    debug: { type: 'boolean' },
  },
  required: ['env'],
  additionalProperties: false,
};

describe('checkSchemaParams', () => {
  const inline = { schema, file: null };

  it('fills in the defaults and lists the params in the order of the properties', async () => {
    expect(await checkSchemaParams(dag, inline, ['debug=true'])).toEqual({
      ok: true,
      list: ['debug=true', 'env=dev', 'port=8080'],
    });
  });

  it('refuses a value the schema does not accept, naming it', async () => {
    const r = await checkSchemaParams(dag, inline, ['port=70000']);
    expect(r).toEqual({
      ok: false,
      error: 'params: parameter validation failed: params/port must be <= 65535',
    });
    const extra = await checkSchemaParams(dag, inline, ['other=1']);
    expect(extra).toEqual({
      ok: false,
      error:
        'params: parameter validation failed: params must NOT have additional properties ("other" is not declared)',
    });
  });

  it('refuses a missing required param', async () => {
    const s = { schema: { ...schema, properties: { env: { type: 'string' } } }, file: null };
    const r = await checkSchemaParams(dag, s, []);
    expect(r.ok || r.error).toBe(
      "params: parameter validation failed: params must have required property 'env'",
    );
  });

  it('reads a schema file from the DAG file folder, in the order it lists its properties', async () => {
    writeFileSync(
      join(dir, 'p.json'),
      JSON.stringify({ type: 'object', properties: { b: { default: 'x' }, a: {} } }),
    );
    expect(await checkSchemaParams(dag, { schema: null, file: 'p.json' }, ['a={"k":1}'])).toEqual({
      ok: true,
      list: ['b=x', 'a={"k":1}'],
    });
  });

  it('refuses a missing, non-JSON, non-object or remote-referencing schema file', async () => {
    const missing = await checkSchemaParams(dag, { schema: null, file: 'none.json' }, []);
    expect(missing.ok || missing.error).toMatch(/^params: schema file not found for "none.json"; tried /);
    writeFileSync(join(dir, 'bad.json'), '{not json');
    const bad = await checkSchemaParams(dag, { schema: null, file: 'bad.json' }, []);
    expect(bad.ok || bad.error).toMatch(/cannot be read as JSON/);
    writeFileSync(join(dir, 'list.json'), '[1]');
    const list = await checkSchemaParams(dag, { schema: null, file: 'list.json' }, []);
    expect(list.ok || list.error).toMatch(/a JSON Schema must be an object or a boolean, got a list/);
    writeFileSync(join(dir, 'ref.json'), JSON.stringify({ $ref: 'https://example.com/x.json' }));
    const ref = await checkSchemaParams(dag, { schema: null, file: 'ref.json' }, []);
    expect(ref.ok || ref.error).toMatch(/points outside the schema/);
  });

  it('refuses a schema Ajv cannot compile with its reason', async () => {
    const r = await checkSchemaParams(
      dag,
      { schema: { type: 'object', minProperties: 'x' }, file: null },
      [],
    );
    expect(r.ok || r.error).toMatch(/^params: invalid JSON Schema: /);
  });
});

describe('output_schema', () => {
  const outSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['category', 'confidence'],
    properties: { category: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
  };
  const step = { output_schema: outSchema } as unknown as StepSpec;

  async function publish(stdout: string, opts: { failed?: boolean; maxBytes?: number; s?: StepSpec } = {}) {
    const capture = new OutputCapture(opts.maxBytes ?? 1024);
    capture.push(Buffer.from(stdout));
    const status = {} as StepStatus;
    const error = await publishStructuredOutputs(
      opts.s ?? step,
      status,
      { stdout: capture, stderr: null },
      {
        scope: { vars: {}, params: {}, hostEnv: {} } as never,
        cwd: dir,
        maxBytes: opts.maxBytes ?? 1024,
        signal: new AbortController().signal,
        failed: opts.failed,
      },
    );
    return { error, value: status.output_value };
  }

  it('publishes the checked value as compact JSON', async () => {
    expect(await publish('  {"category": "bug", "confidence": 0.9}\n')).toEqual({
      error: null,
      value: '{"category":"bug","confidence":0.9}',
    });
  });

  it('fails on a mismatch, text that is not JSON, or empty stdout, never quoting stdout', async () => {
    const mismatch = await publish('{"category":"leak-sentinel","confidence":2}');
    expect(mismatch.error).toBe('failed to validate output_schema: stdout JSON does not match output_schema');
    const text = await publish('not-json secret-value');
    expect(text.error).toMatch(/failed to decode stdout JSON for output_schema/);
    expect(text.error).not.toMatch(/secret/);
    const empty = await publish('   ');
    expect(empty.error).toMatch(/output_schema requires stdout to contain a JSON value matching the schema/);
  });

  it('keeps a failed command its own error', async () => {
    expect(await publish('not-json', { failed: true })).toEqual({ error: null, value: null });
  });

  it('applies max_output_size', async () => {
    const r = await publish(JSON.stringify({ category: 'x'.repeat(100), confidence: 1 }), { maxBytes: 50 });
    expect(r.error).toMatch(/output exceeded maximum size limit of 50 bytes/);
  });
});
