import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { plainPath, runDataAction } from './dataAction';
import { readRecords, writeRecords } from './dataCsv';
import { formatG, parseTimestamp } from './dataValues';
import { emitYaml, naturalKeyOrder, parseYamlData } from './dataYaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-data-action-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function data(op: 'convert' | 'pick', w: Record<string, unknown>) {
  const ctx = testContext({ with: w, workingDir: dir });
  const result = await runDataAction(op, ctx);
  return { error: result.error, out: ctx.out.text() };
}

const USERS_CSV = 'name,age\nAlice,30\nBob,25\n';

describe('data.convert', () => {
  it('turns CSV into JSON objects keyed by the header, indented by two spaces with keys sorted', async () => {
    const { error, out } = await data('convert', { from: 'csv', to: 'json', data: USERS_CSV });
    expect(error).toBeNull();
    expect(out).toBe(
      '[\n  {\n    "age": "30",\n    "name": "Alice"\n  },\n  {\n    "age": "25",\n    "name": "Bob"\n  }\n]\n',
    );
  });

  it('turns YAML into CSV in the order of columns', async () => {
    const { out } = await data('convert', {
      from: 'yaml',
      to: 'csv',
      columns: ['name', 'age'],
      data: '- name: Alice\n  age: 30\n- name: Bob\n  age: 25\n',
    });
    expect(out).toBe('name,age\nAlice,30\nBob,25\n');
  });

  it('leaves the header out with headers: false', async () => {
    const { out } = await data('convert', {
      from: 'json',
      to: 'csv',
      headers: false,
      columns: ['name', 'age'],
      data: '[{"name":"Alice","age":30}]',
    });
    expect(out).toBe('Alice,30\n');
  });

  it('sorts the columns of object rows when none are given, and writes cells as Go does', async () => {
    const { out } = await data('convert', {
      from: 'json',
      to: 'csv',
      data: '[{"id":1700000000,"n":null,"q":"say \\"hi\\"","tags":["<a>","b"],"ok":true,"f":0.5}]',
    });
    expect(out).toBe('f,id,n,ok,q,tags\n0.5,1.7e+09,,true,"say ""hi""","[""\\u003ca\\u003e"",""b""]"\n');
  });

  it('writes YAML integers and whole numbers written in the DAG as digits', async () => {
    const fromYaml = await data('convert', { from: 'yaml', to: 'csv', data: '- id: 1700000000\n' });
    expect(fromYaml.out).toBe('id\n1700000000\n');
    const inline = await data('convert', { from: 'json', to: 'csv', data: [{ id: 1700000000 }] });
    expect(inline.out).toBe('id\n1700000000\n');
  });

  it('writes rows that are lists, with the columns as header', async () => {
    const { out } = await data('convert', {
      from: 'json',
      to: 'tsv',
      columns: ['a', 'b'],
      data: '[[1, "x y"], [2, " lead"]]',
    });
    expect(out).toBe('a\tb\n1\tx y\n2\t" lead"\n');
  });

  it('reads headerless CSV as lists, or as objects keyed by columns', async () => {
    const lists = await data('convert', { from: 'csv', to: 'json', has_header: false, data: 'a,b\n1,2\n' });
    expect(JSON.parse(lists.out)).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    const keyed = await data('convert', {
      from: 'csv',
      to: 'json',
      has_header: false,
      columns: ['x', 'y', 'z'],
      data: 'a,b\n',
    });
    expect(JSON.parse(keyed.out)).toEqual([{ x: 'a', y: 'b', z: '' }]);
  });

  it('reads TSV and a custom delimiter, for input and output', async () => {
    const tsv = await data('convert', { from: 'tsv', to: 'json', data: 'k\tv\none\t1\n' });
    expect(JSON.parse(tsv.out)).toEqual([{ k: 'one', v: '1' }]);
    const semi = await data('convert', { from: 'csv', to: 'csv', delimiter: ';', data: 'b;a\n2;1\n' });
    expect(semi.out).toBe('a;b\n1;2\n');
  });

  it('prints an empty list for empty CSV, and only the header for no rows', async () => {
    expect((await data('convert', { from: 'csv', to: 'json', data: '' })).out).toBe('[]\n');
    expect((await data('convert', { from: 'json', to: 'csv', columns: ['a'], data: '[]' })).out).toBe('a\n');
  });

  it('writes YAML as yaml.v3 does', async () => {
    const { out } = await data('convert', {
      from: 'json',
      to: 'yaml',
      data: JSON.stringify({
        list: [1, { x: 'y', z: [] }],
        map: { n: 1000000, s: '30', t: 'a: b', m: 'l1\nl2\n', e: '', d: '2024-01-01', u: '😀', k: {} },
        a10: 1,
        a2: 2.5,
      }),
    });
    expect(out).toBe(
      [
        'a2: 2.5',
        'a10: 1',
        'list:',
        '    - 1',
        '    - x: "y"',
        '      z: []',
        'map:',
        '    d: "2024-01-01"',
        '    e: ""',
        '    k: {}',
        '    m: |',
        '        l1',
        '        l2',
        '    "n": 1e+06',
        '    s: "30"',
        "    t: 'a: b'",
        '    u: "\\U0001F600"',
        '',
      ].join('\n'),
    );
  });

  it('reads YAML types as yaml.v3 does: ints, floats, timestamps, old booleans as text', async () => {
    const { out } = await data('convert', {
      from: 'yaml',
      to: 'json',
      data: 'd: 2024-01-31\nn: 1_000\nf: 1.5\nh: 0x1F\no: 017\ns: yes\nx: ~\nq: "12"\n<<: {m: 1, n: 2}\n',
    });
    expect(JSON.parse(out)).toEqual({
      d: '2024-01-31T00:00:00Z',
      n: 1000,
      f: 1.5,
      h: 31,
      o: 15,
      s: 'yes',
      x: null,
      q: '12',
      m: 1,
    });
  });

  it('uses an inline value written in the DAG as it is', async () => {
    const { out } = await data('convert', { from: 'yaml', to: 'json', data: { b: [1, 'x'], a: true } });
    expect(out).toBe('{\n  "a": true,\n  "b": [\n    1,\n    "x"\n  ]\n}\n');
  });

  it('prints text as it is, without a line break, and other values as compact JSON', async () => {
    expect((await data('convert', { from: 'text', to: 'text', data: 'hello' })).out).toBe('hello');
    expect((await data('convert', { from: 'json', to: 'text', data: '{"a":"<b>"}' })).out).toBe(
      '{"a":"\\u003cb\\u003e"}',
    );
    expect((await data('convert', { from: 'text', to: 'json', data: 'hi' })).out).toBe('"hi"\n');
  });

  it('reads the input file relative to the working directory', async () => {
    await writeFile(join(dir, 'users.csv'), 'name\nAlice\n');
    const { error, out } = await data('convert', { from: 'csv', to: 'json', input: 'users.csv' });
    expect(error).toBeNull();
    expect(JSON.parse(out)).toEqual([{ name: 'Alice' }]);
  });
});

describe('data.pick', () => {
  it('prints a raw scalar from YAML', async () => {
    const { out } = await data('pick', {
      from: 'yaml',
      select: '.spec.containers[0].image',
      raw: true,
      data: 'spec:\n  containers:\n    - image: nginx:1.27\n',
    });
    expect(out).toBe('nginx:1.27\n');
  });

  it('prints a CSV row as JSON by default, or in the format to', async () => {
    expect((await data('pick', { from: 'csv', select: '.[1]', data: USERS_CSV })).out).toBe(
      '{\n  "age": "25",\n  "name": "Bob"\n}\n',
    );
    expect((await data('pick', { from: 'csv', select: '.[-1]', to: 'yaml', data: USERS_CSV })).out).toBe(
      'age: "25"\nname: Bob\n',
    );
  });

  it('prints raw numbers as Go does, null as an empty line, maps as compact JSON', async () => {
    const doc = '{"big":1000000,"small":42,"none":null,"obj":{"b":1,"a":[true]}}';
    const pick = async (select: string) =>
      (await data('pick', { from: 'json', select, raw: true, data: doc })).out;
    expect(await pick('.big')).toBe('1e+06\n');
    expect(await pick('.small')).toBe('42\n');
    expect(await pick('.none')).toBe('\n');
    expect(await pick('.obj')).toBe('{"a":[true],"b":1}\n');
    expect(await pick('."obj"["a"][0]')).toBe('true\n');
    expect(await pick('.missing.deeper')).toBe('\n');
  });

  it('runs any other jq expression, taking its first result', async () => {
    const doc = '{"items":[{"n":"a"},{"n":"b"}]}';
    expect((await data('pick', { from: 'json', select: '.items | length', raw: true, data: doc })).out).toBe(
      '2\n',
    );
    expect((await data('pick', { from: 'json', select: '.items[].n', raw: true, data: doc })).out).toBe(
      'a\n',
    );
  });

  it.each([
    ['.items.x', 'an index into a list by name'],
    ['.items[', 'an expression that does not compile'],
    ['.items[] | select(.n == "z")', 'no result'],
  ])('fails for %s (%s)', async (select) => {
    const { error } = await data('pick', { from: 'json', select, data: '{"items":[{"n":"a"}]}' });
    expect(error).toBe(`data pick: failed to resolve select path ${JSON.stringify(select)}`);
  });
});

describe('data errors', () => {
  it.each([
    [{ from: 'json', to: 'yaml', data: '{"a":' }, 'data: failed to decode JSON: '],
    [{ from: 'yaml', to: 'json', data: 'a: [1\n' }, 'data: failed to decode YAML: '],
    [
      { from: 'yaml', to: 'json', data: 'a: 1\na: 2\n' },
      'data: failed to decode YAML: Map keys must be unique',
    ],
    [
      { from: 'csv', to: 'json', data: 'a,b\n1,2\n3\n' },
      'data: failed to decode csv: record on line 3: wrong number of fields',
    ],
    [
      { from: 'csv', to: 'json', data: 'a"b\n', delimiter: '"' },
      'data: failed to decode csv: csv: invalid field or comment delimiter',
    ],
    [{ from: 'csv', to: 'json', data: { a: 1 } }, 'data: csv input must be a string or input file'],
    [{ from: 'json', to: 'csv', data: '{"a":1}' }, 'data: csv output requires an array input'],
    [
      { from: 'json', to: 'csv', data: '[{"a":1},[1]]' },
      'data: cannot mix object and array rows in delimited output',
    ],
    [{ from: 'json', to: 'csv', data: '[1]' }, 'data: delimited output rows must be objects or arrays'],
    [
      { from: 'yaml', to: 'json', data: 'x: .inf\n' },
      'data: failed to encode JSON: json: unsupported value: +Inf',
    ],
    [{ from: 'csv', to: 'json', input: 'missing.csv' }, 'data: reading input file '],
    [{ to: 'json', data: '1' }, 'data: configuration error: from is required'],
    [{ from: 'xml', to: 'json', data: '1' }, 'data: configuration error: unsupported from format "xml"'],
    [{ from: 'json', data: '1' }, 'data: configuration error: to is required'],
    [{ from: 'json', to: 'json' }, 'data: configuration error: either data or input is required'],
    [
      { from: 'json', to: 'json', data: '1', input: 'x' },
      'data: configuration error: data and input are mutually exclusive',
    ],
    [
      { from: 'csv', to: 'csv', data: '1', delimiter: ';;' },
      'data: configuration error: delimiter must be a single character',
    ],
    [
      { from: 'json', to: 'json', data: '1', raw: 'maybe' },
      'data: configuration error: with.raw must be true or false',
    ],
    [
      { from: 'json', to: 'json', data: '1', extra: 1 },
      'data: configuration error: unknown key(s) in with: extra',
    ],
  ])('convert %j fails with %s', async (w, message) => {
    const { error, out } = await data('convert', w);
    expect(error).toContain(message);
    expect(out).toBe('');
  });

  it('names the missing file as Go does', async () => {
    const { error } = await data('convert', { from: 'csv', to: 'json', input: 'missing.csv' });
    expect(error).toBe(
      `data: reading input file "${join(dir, 'missing.csv')}": open ${join(dir, 'missing.csv')}: no such file or directory`,
    );
  });

  it.each([
    [{ from: 'json', data: '1' }, 'select is required'],
    [{ from: 'json', data: '1', select: '.', raw: true, to: 'yaml' }, 'raw and to are mutually exclusive'],
    [{ from: 'json', data: '1', select: '.', to: 'xml' }, 'unsupported to format "xml"'],
  ])('pick %j fails with %s', async (w, message) => {
    expect((await data('pick', w)).error).toBe(`data: configuration error: ${message}`);
  });
});

describe('Go encodings', () => {
  it.each([
    [1e6, '1e+06'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5, '-2.5'],
    [1e21, '1e+21'],
  ])('formats %d with %%v as %s', (n, text) => {
    expect(formatG(n)).toBe(text);
  });

  it('reads CSV as encoding/csv with lazy quotes and leading space trimmed', () => {
    expect(readRecords('a, "b""c",d\r\n\n"x\ny",  z,"q"r\n', ',')).toEqual([
      ['a', 'b"c', 'd'],
      ['x\ny', 'z', 'q"r\n'],
    ]);
    expect(readRecords('a\t\tb\n', '\t')).toEqual([['a', 'b']]);
  });

  it('quotes CSV fields as csv.Writer does', () => {
    expect(writeRecords([['plain', 'a,b', ' lead', 'q"', '', '\\.', 'l\nb']], ',')).toBe(
      'plain,"a,b"," lead","q""",,"\\.","l\nb"\n',
    );
  });

  it('orders YAML keys as yaml.v3 does', () => {
    expect(['b', 'a10', 'a2', 'B', '_x', 'a'].sort(naturalKeyOrder)).toEqual([
      '_x',
      'B',
      'a',
      'a2',
      'a10',
      'b',
    ]);
  });

  it('writes nested YAML sequences and maps with yaml.v3 indentation', () => {
    expect(emitYaml(parseYamlData('- a: 1\n  b:\n    c: [x, y]\n- - 1\n  - 2\n- "text\\nmore"\n'))).toBe(
      '- a: 1\n  b:\n    c:\n        - x\n        - "y"\n- - 1\n  - 2\n- |-\n  text\n  more\n',
    );
    expect(emitYaml('plain')).toBe('plain\n');
    expect(emitYaml(null)).toBe('null\n');
    expect(emitYaml([])).toBe('[]\n');
    expect(emitYaml(' lead\nx')).toBe('|4-\n     lead\n    x\n');
  });

  it('parses YAML timestamps as Go time values', () => {
    expect(parseTimestamp('2024-02-30')).toBeNull();
    expect(parseTimestamp('2024-1-2T03:04:05.500+02:00')?.rfc3339).toBe('2024-01-02T03:04:05.5+02:00');
    expect(parseTimestamp('2024-01-02 03:04:05')?.goString).toBe('2024-01-02 03:04:05 +0000 UTC');
  });

  it('follows plain jq paths itself and leaves other expressions to jq', () => {
    expect(plainPath('.')).toEqual([]);
    expect(plainPath('.a.b[0]')).toEqual(['a', 'b', 0]);
    expect(plainPath('."k 1".["x"][-2]')).toEqual(['k 1', 'x', -2]);
    expect(plainPath('.a | length')).toBeNull();
    expect(plainPath('.a[]')).toBeNull();
  });
});
