import { describe, expect, it } from 'vitest';
import { parseDag } from './parseDag';

/** The step's action, or the errors of a one-step DAG whose step is `step` (YAML, indented under `- `). */
function load(step: string) {
  const text = `steps:\n  - id: d\n${step
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
  const r = parseDag(text, { file: '/srv/dags/data.yaml', defaultName: 'data' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), action: null };
  return { errors: [] as string[], action: r.dag.steps[0].action };
}

describe('data actions at load time', () => {
  it('keeps with as written for data.convert and data.pick', () => {
    const convert = load(
      'action: data.convert\nwith:\n  from: csv\n  to: json\n  data: "a\\n1\\n"\n  has_header: true',
    );
    expect(convert.action).toEqual({
      kind: 'data',
      op: 'convert',
      with: { from: 'csv', to: 'json', data: 'a\n1\n', has_header: true },
    });
    const pick = load('action: data.pick\nwith:\n  from: json\n  select: .a\n  data: {a: 1}\n  raw: true');
    expect(pick.action).toEqual({
      kind: 'data',
      op: 'pick',
      with: { from: 'json', select: '.a', data: { a: 1 }, raw: true },
    });
  });

  it('reads the legacy type: data with the operation in command', () => {
    const r = load('type: data\ncommand: pick\nconfig:\n  from: json\n  select: .a\n  data: "{}"');
    expect(r.action).toMatchObject({ kind: 'data', op: 'pick' });
    expect(load('type: data\ncommand: sort\nconfig: {from: json, data: "{}"}').errors).toEqual([
      'steps[0].command: unsupported data operation "sort" (use convert or pick)',
    ]);
  });

  it.each([
    ['action: data.convert', 'steps[0].action: data.convert needs with: from, and data or input'],
    ['action: data.convert\nwith: {to: json, data: x}', 'steps[0].with: data.convert needs with.from'],
    [
      'action: data.convert\nwith: {from: xml, to: json, data: x}',
      'steps[0].with.from: must be one of json, yaml, csv, tsv, text, got "xml"',
    ],
    [
      'action: data.convert\nwith: {from: JSON, to: json, data: x}',
      'steps[0].with.from: must be one of json, yaml, csv, tsv, text, got "JSON"',
    ],
    [
      'action: data.convert\nwith: {from: "${F}", to: json, data: x}',
      'steps[0].with.from: must be one of json, yaml, csv, tsv, text, got "${F}"',
    ],
    ['action: data.convert\nwith: {from: json, data: x}', 'steps[0].with: data.convert needs with.to'],
    [
      'action: data.convert\nwith: {from: json, to: json}',
      'steps[0].with: data.convert needs with.data (inline) or with.input (a file path)',
    ],
    [
      'action: data.convert\nwith: {from: json, to: json, input: ""}',
      'steps[0].with.input: data.convert needs with.data (inline) or with.input (a file path)',
    ],
    [
      'action: data.convert\nwith: {from: json, to: json, data: x, input: f.json}',
      'steps[0].with.input: data and input are mutually exclusive; give one',
    ],
    [
      'action: data.convert\nwith: {from: json, to: json, data: x, raw: "yes"}',
      'steps[0].with.raw: must be true or false, got a string "yes"',
    ],
    [
      'action: data.convert\nwith: {from: csv, to: json, data: x, has_header: 1}',
      'steps[0].with.has_header: must be true or false, got a number 1',
    ],
    [
      'action: data.convert\nwith: {from: csv, to: json, data: x, delimiter: ";;"}',
      'steps[0].with.delimiter: must be a single character, got ";;"',
    ],
    [
      'action: data.convert\nwith: {from: csv, to: json, data: x, columns: a}',
      'steps[0].with.columns: columns must be a list, got a string "a"',
    ],
    [
      'action: data.convert\nwith: {from: csv, to: json, data: x, columns: [a, 1]}',
      'steps[0].with.columns[1]: must be a column name (a string), got a number 1',
    ],
    [
      'action: data.convert\nwith: {from: csv, to: json, input: 3}',
      'steps[0].with.input: must be a string, got a number 3',
    ],
    [
      'action: data.pick\nwith: {from: json, data: x}',
      'steps[0].with: data.pick needs with.select (a jq path such as .items[0].name)',
    ],
    [
      'action: data.pick\nwith: {from: json, data: x, select: "  "}',
      'steps[0].with.select: data.pick needs with.select (a jq path such as .items[0].name)',
    ],
    [
      'action: data.pick\nwith: {from: json, data: x, select: ., raw: true, to: yaml}',
      'steps[0].with.to: raw and to are mutually exclusive; give one',
    ],
    [
      'action: data.pick\nwith: {from: json, data: x, select: ., to: xml}',
      'steps[0].with.to: must be one of json, yaml, csv, tsv, text, got "xml"',
    ],
    [
      'action: data.pick\ncommand: x\nwith: {from: json, data: x, select: .}',
      'steps[0].command: action data.pick does not take command',
    ],
    [
      'action: data\nwith: {from: json, data: x, select: .}',
      'steps[0].action: action data needs an operation: data.convert or data.pick',
    ],
    [
      'action: data.sort\nwith: {from: json, data: x}',
      'steps[0].action: unknown action "data.sort" (data has data.convert, data.pick)',
    ],
  ])('refuses %j', (step, message) => {
    expect(load(step).errors).toEqual([message]);
  });

  it('refuses an unknown with key, naming it', () => {
    const { errors } = load('action: data.convert\nwith: {from: json, to: json, data: x, filter: .}');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^steps\[0\]\.with\.filter: unknown key/);
  });
});
