import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { plainNumber, runJqAction } from './jqAction';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-jq-action-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const DATA = {
  b: [
    { x: 1, n: 'p' },
    { x: 2, n: 'q' },
    { x: 3, n: 'r' },
  ],
  a: 1,
  s: 'hi',
};

async function jq(filter: string, more: Record<string, unknown> = {}) {
  const ctx = testContext({ with: { filter, data: DATA, ...more } });
  const result = await runJqAction(ctx);
  return { result, out: ctx.out.text(), err: ctx.err.text() };
}

describe('jq action', () => {
  it('prints each result as JSON indented by four spaces, keys sorted as Go writes them', async () => {
    const { result, out } = await jq('.b[] | select(.x > 1) | {n, x, "<k>": true}');
    expect(result).toEqual({ exitCode: 0, error: null });
    expect(out).toBe(
      '{\n    "\\u003ck\\u003e": true,\n    "n": "q",\n    "x": 2\n}\n' +
        '{\n    "\\u003ck\\u003e": true,\n    "n": "r",\n    "x": 3\n}\n',
    );
  });

  it.each([
    ['.a', '1\n'],
    ['keys', '[\n    "a",\n    "b",\n    "s"\n]\n'],
    ['.b | length', '3\n'],
    ['.b | map(select(.x > 1)) | map(.n)', '[\n    "q",\n    "r"\n]\n'],
    ['"v=\\(.a) s=\\(.s)"', '"v=1 s=hi"\n'],
    ['.s | @base64', '"aGk="\n'],
    ['[] , {}', '[]\n{}\n'],
    ['empty', ''],
    ['{"10": 1, "9": 2, "b": 3}', '{\n    "10": 1,\n    "9": 2,\n    "b": 3\n}\n'],
  ])('runs %s', async (filter, expected) => {
    const { result, out } = await jq(filter);
    expect(result).toEqual({ exitCode: 0, error: null });
    expect(out).toBe(expected);
  });

  it('prints strings unquoted, null as an empty line and numbers without exponent with raw', async () => {
    const { result, out } = await jq('.s, null, true, 1e21, 0.0000001, [1, "x"], {"b": 1, "a": 2}', {
      raw: true,
    });
    expect(result).toEqual({ exitCode: 0, error: null });
    expect(out).toBe('hi\n\ntrue\n1000000000000000000000\n0.0000001\n[1,"x"]\n{"a":2,"b":1}\n');
  });

  it('reads the legacy form: the filter in command, the input JSON in script', async () => {
    const ctx = testContext({ command: ['.items[0]'], script: '{"items": ["first", "second"]}' });
    expect(await runJqAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('"first"\n');
  });

  it('takes text in with.data as the JSON document itself', async () => {
    const ctx = testContext({ with: { filter: '.k', data: '{"k": [1]}' } });
    expect(await runJqAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('[\n    1\n]\n');
  });

  it('reads with.input relative to the working directory, and script file:// paths', async () => {
    await writeFile(join(dir, 'in.json'), '{"name": "dagu"}');
    const fromInput = testContext({
      workingDir: dir,
      with: { filter: '.name', input: 'in.json', raw: 'true' },
    });
    expect(await runJqAction(fromInput)).toEqual({ exitCode: 0, error: null });
    expect(fromInput.out.text()).toBe('dagu\n');
    const fromScript = testContext({ command: ['.name'], script: `file://${join(dir, 'in.json')}` });
    expect(await runJqAction(fromScript)).toEqual({ exitCode: 0, error: null });
    expect(fromScript.out.text()).toBe('"dagu"\n');
  });

  it('reports an error while running on stderr and still succeeds, keeping the results before it', async () => {
    const { result, out, err } = await jq('.a, error("boom"), .s');
    expect(result).toEqual({ exitCode: 0, error: null });
    expect(out).toBe('1\n');
    expect(err).toBe('failed to run jq query: boom\n');
  });

  it('fails when the filter does not compile', async () => {
    const { result, out } = await jq('.[');
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(/^jq: the filter does not compile: syntax error, unexpected end of file/);
    expect(out).toBe('');
  });

  it.each([
    [{ filter: '.', data: 'not json' }, /^jq: with\.data is not JSON: /],
    [{ filter: '.', data: '  ' }, /^jq: with\.data is empty$/],
    [
      { filter: '.' },
      /^jq: no input: set with\.data \(a JSON value\), with\.input \(a file path\) or script$/,
    ],
    [
      { filter: '.', data: 1, input: 'x.json' },
      /^jq: with\.input cannot be combined with with\.data or script/,
    ],
    [{ filter: '.', input: 'missing.json' }, /^jq: with\.input: cannot read '.*missing\.json': ENOENT/],
    [{ filter: 42, data: 1 }, /^jq: with\.filter: 42 is not a jq filter \(text\)$/],
    [{ filter: '.', data: 1, raw: 'sometimes' }, /^jq: with\.raw: 'sometimes' is not true or false$/],
  ])('refuses bad input %j', async (settings, error) => {
    const result = await runJqAction(testContext({ workingDir: dir, with: settings }));
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(error);
  });

  it('refuses an input file that is not JSON, naming it', async () => {
    await writeFile(join(dir, 'bad.json'), '{"a": ');
    const result = await runJqAction(
      testContext({ workingDir: dir, with: { filter: '.', input: 'bad.json' } }),
    );
    expect(result.exitCode).toBe(1);
    expect(result.error).toContain(`jq: with.input '${join(dir, 'bad.json')}' is not JSON`);
  });

  it('ends an endless filter promptly when the step is stopped', async () => {
    const stop = new AbortController();
    const ctx = testContext({ signal: stop.signal, with: { filter: 'last(range(1e15))', data: null } });
    const running = runJqAction(ctx);
    setTimeout(() => stop.abort(), 200);
    const result = await running;
    expect(result).toEqual({ exitCode: 1, error: 'jq: stopped' });
  });
});

describe('plainNumber', () => {
  it.each([
    [1e21, '1000000000000000000000'],
    [1.5e-7, '0.00000015'],
    [-2.5e22, '-25000000000000000000000'],
    [123.25, '123.25'],
    [0, '0'],
  ])('writes %s as %s', (n, text) => {
    expect(plainNumber(n)).toBe(text);
  });
});
