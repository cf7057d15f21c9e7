// Load rules of Dagu 2.x's structured step outputs (upstream internal/spec/step.go: the object form of
// `output:` and `stdout: {outputs}`), one test per rule.

import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from './parseDag';
import type { StepSpec } from '../types';

const yaml = (...rows: string[]) => rows.join('\n') + '\n';

function stepOf(...rows: string[]): StepSpec {
  const r = parseDag(yaml('steps:', '  - id: s', ...rows.map((x) => '    ' + x)), {
    file: '/d/x.yaml',
    defaultName: 'x',
  });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag.steps[0];
}

/** The errors of a one-step DAG, as `field: message`. */
function errorsOf(...rows: string[]): string[] {
  const r = parseDag(yaml('steps:', '  - id: s', ...rows.map((x) => '    ' + x)), {
    file: '/d/x.yaml',
    defaultName: 'x',
  });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map((e) => `${e.field}: ${e.message}${e.kind ? ' [unsupported]' : ''}`);
}

describe('object-form output', () => {
  it('reads literals, value entries and source entries in file order', () => {
    const s = stepOf(
      'run: echo hi',
      'output:',
      '  label: "ver ${build.output.version}"',
      '  count: 3',
      '  tags: [a, b]',
      '  meta: {env: stg, n: 1}',
      '  wrapped: {value: {from: not-a-source}}',
      '  version: {from: stdout, decode: json, select: .version}',
      '  err: {from: stderr}',
      '  file: {from: file, path: " meta.yaml ", decode: yaml}',
    );
    expect(s.output).toBeNull();
    expect(s.action).toEqual({ kind: 'command' });
    expect(s.structured_output).toEqual([
      ['label', { kind: 'value', value: 'ver ${build.output.version}' }],
      ['count', { kind: 'value', value: 3 }],
      ['tags', { kind: 'value', value: ['a', 'b'] }],
      ['meta', { kind: 'value', value: { env: 'stg', n: 1 } }],
      ['wrapped', { kind: 'value', value: { from: 'not-a-source' } }],
      ['version', { kind: 'source', from: 'stdout', path: null, decode: 'json', select: '.version' }],
      ['err', { kind: 'source', from: 'stderr', path: null, decode: null, select: null }],
      ['file', { kind: 'source', from: 'file', path: 'meta.yaml', decode: 'yaml', select: null }],
    ]);
  });

  it('keeps output: NAME as before, and an empty map publishes nothing', () => {
    expect(stepOf('run: a', 'output: $RESULT').output).toBe('RESULT');
    const s = stepOf('run: a', 'output: {}');
    expect(s.output).toBeNull();
    expect(s.structured_output).toBeUndefined();
  });

  it('makes a step with only literal or file entries a noop step', () => {
    expect(stepOf('output: {label: v1}').action).toEqual({ kind: 'noop' });
    expect(stepOf('output: {f: {from: file, path: a.txt}}').action).toEqual({ kind: 'noop' });
  });

  it('still needs run when an entry reads stdout or stderr', () => {
    expect(errorsOf('output: {v: {from: stdout}}')).toEqual([
      'steps[0]: a step needs run, an action or a call',
    ]);
    expect(errorsOf('output: {v: {from: stderr}}')).toEqual([
      'steps[0]: a step needs run, an action or a call',
    ]);
  });

  it.each([
    ['from: 123', ['steps[0].output.v.from: must be a string, got a number 123']],
    ['from: file, path: 123', ['steps[0].output.v.path: must be a string, got a number 123']],
    ['from: stdout, decode: 123', ['steps[0].output.v.decode: must be a string, got a number 123']],
    [
      'from: stdout, decode: json, select: 123',
      ['steps[0].output.v.select: must be a string, got a number 123'],
    ],
    ['from: network', ['steps[0].output.v.from: from must be stdout, stderr or file, got "network"']],
    ['value: x, from: stdout', ['steps[0].output.v.from: value and from cannot be used together']],
    ['decode: json', ['steps[0].output.v: an output entry needs a literal value or from']],
    [
      'value: x, decode: json',
      ['steps[0].output.v.decode: path, decode and select go with from, not with value'],
    ],
    ['value: x, path: a', ['steps[0].output.v.path: path, decode and select go with from, not with value']],
    ['from: stdout, path: a.json', ['steps[0].output.v.path: path goes only with from: file']],
    ['from: file', ['steps[0].output.v.from: from: file needs a path']],
    ['from: file, path: " "', ['steps[0].output.v.path: from: file needs a path']],
    ['from: stdout, decode: xml', ['steps[0].output.v.decode: decode must be text, json or yaml, got "xml"']],
    [
      'from: stdout, decode: text, select: .a',
      ['steps[0].output.v.select: select needs decode: json or decode: yaml'],
    ],
    // In an object output, select does not imply json (it does under stdout.outputs).
    ['from: stdout, select: .a', ['steps[0].output.v.select: select needs decode: json or decode: yaml']],
    ['from: ~', ['steps[0].output.v.from: from must be a string, got nothing']],
  ])('refuses {%s}', (entry, want) => {
    expect(errorsOf('run: a', `output: {v: {${entry}}}`)).toEqual(want);
  });

  it('refuses an unknown key beside a source key', () => {
    const errs = errorsOf('run: a', 'output: {v: {from: stdout, invalid: true}}');
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^steps\[0\]\.output\.v\.invalid: .*invalid/);
  });

  it('refuses an output that is neither a name nor a map', () => {
    expect(errorsOf('run: a', 'output: 123')).toEqual([
      'steps[0].output: must be a variable name or a map, got a number 123',
    ]);
    expect(errorsOf('run: a', 'output: [a]')).toEqual([
      'steps[0].output: must be a variable name or a map, got a list',
    ]);
  });
});

describe('stdout: {outputs}', () => {
  it('reads a field name, a decoded form, and fields', () => {
    expect(stepOf('run: a', 'stdout: {outputs: " messageId "}').stdout_outputs).toEqual({
      field: 'messageId',
      decode: null,
      select: null,
      fields: null,
    });
    expect(stepOf('run: a', 'stdout: {outputs: {decode: yaml}}').stdout_outputs).toEqual({
      field: null,
      decode: 'yaml',
      select: null,
      fields: null,
    });
    // select alone means json here.
    expect(stepOf('run: a', 'stdout: {outputs: {field: id, select: .id}}').stdout_outputs).toEqual({
      field: 'id',
      decode: 'json',
      select: '.id',
      fields: null,
    });
    const s = stepOf(
      'run: a',
      'stdout:',
      '  outputs:',
      '    fields:',
      '      id: {decode: json, select: .id}',
      '      sel: {select: .x}',
      '      raw: {}',
      '      src: {from: stdout, decode: yaml}',
      '      status: accepted',
      '      obj: {value: {a: 1}}',
    );
    expect(s.stdout_file).toBeNull();
    expect(s.stdout_outputs?.fields).toEqual([
      ['id', { kind: 'source', from: 'stdout', path: null, decode: 'json', select: '.id' }],
      ['sel', { kind: 'source', from: 'stdout', path: null, decode: 'json', select: '.x' }],
      ['raw', { kind: 'source', from: 'stdout', path: null, decode: null, select: null }],
      ['src', { kind: 'source', from: 'stdout', path: null, decode: 'yaml', select: null }],
      ['status', { kind: 'value', value: 'accepted' }],
      ['obj', { kind: 'value', value: { a: 1 } }],
    ]);
  });

  it('keeps a string stdout a file path', () => {
    const s = stepOf('run: a', 'stdout: out.txt');
    expect(s.stdout_file).toBe('out.txt');
    expect(s.stdout_outputs).toBeUndefined();
  });

  it.each([
    ['stdout: {}', ['steps[0].stdout: a stdout map needs outputs or artifact (or give a file path)']],
    ['stdout: {outputs: ~}', ['steps[0].stdout.outputs: must be a field name or a map, got nothing']],
    ['stdout: {outputs: " "}', ['steps[0].stdout.outputs: the field name must not be empty']],
    ['stdout: {outputs: 12}', ['steps[0].stdout.outputs: must be a field name or a map, got a number 12']],
    ['stdout: {outputs: {}}', ['steps[0].stdout.outputs: must not be an empty map']],
    ['stdout: {outputs: {field: " "}}', ['steps[0].stdout.outputs.field: field must be a non-empty name']],
    ['stdout: {outputs: {field: 1}}', ['steps[0].stdout.outputs.field: must be a string, got a number 1']],
    [
      'stdout: {outputs: {decode: csv}}',
      ['steps[0].stdout.outputs.decode: decode must be text, json or yaml, got "csv"'],
    ],
    [
      'stdout: {outputs: {decode: text, select: .a}}',
      ['steps[0].stdout.outputs.select: select needs decode: json or decode: yaml'],
    ],
    [
      'stdout: {outputs: {field: a, fields: {b: x}}}',
      ['steps[0].stdout.outputs.field: fields cannot be used together with field, decode or select'],
    ],
    ['stdout: {outputs: {fields: []}}', ['steps[0].stdout.outputs.fields: fields must be a map, got a list']],
    ['stdout: {outputs: {fields: {}}}', ['steps[0].stdout.outputs.fields: fields must not be empty']],
    [
      'stdout: {outputs: {fields: {a: {from: stderr}}}}',
      ['steps[0].stdout.outputs.fields.a.from: a stdout output field reads from stdout only'],
    ],
    [
      'stdout: {outputs: {fields: {a: {from: file, path: x}}}}',
      ['steps[0].stdout.outputs.fields.a.from: a stdout output field reads from stdout only'],
    ],
    [
      'stdout: {outputs: {fields: {a: {decode: xml}}}}',
      ['steps[0].stdout.outputs.fields.a.decode: decode must be text, json or yaml, got "xml"'],
    ],
    [
      'stdout: {outputs: {fields: {a: {value: 1, select: .x}}}}',
      ['steps[0].stdout.outputs.fields.a.select: path, decode and select go with from, not with value'],
    ],
  ])('refuses %s', (row, want) => {
    expect(errorsOf('run: a', row)).toEqual(want);
  });

  it('refuses unknown keys of stdout.outputs and of a field', () => {
    expect(errorsOf('run: a', 'stdout: {outputs: {name: a}}')[0]).toMatch(
      /^steps\[0\]\.stdout\.outputs\.name: /,
    );
    expect(errorsOf('run: a', 'stdout: {outputs: {fields: {a: {path: x}}}}')[0]).toMatch(
      /^steps\[0\]\.stdout\.outputs\.fields\.a\.path: /,
    );
  });

  it('reads stream artifacts, and refuses outputs under stderr as an error', () => {
    expect(errorsOf('run: a', 'stdout: {artifact: ../out.txt}')).toEqual([
      'steps[0].stdout.artifact: artifact path must not contain parent directory segments (..)',
    ]);
    expect(errorsOf('run: a', 'stderr: {outputs: x}')).toEqual([
      'steps[0].stderr.outputs: stderr takes no outputs (stdout: {outputs: ...} does)',
    ]);
  });
});
