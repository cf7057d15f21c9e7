import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeclaredOutputSpec } from '../core/types';
import { parseStepOutputs, readStepOutputs } from './stepOutputs';
import { tempDir } from './testSupport';

const str = (name: string): DeclaredOutputSpec => ({ name, type: 'string' });
const json = (name: string): DeclaredOutputSpec => ({ name, type: 'json' });

describe('parseStepOutputs', () => {
  it('reads name=value lines: the value is everything after the first =, and may be empty', () => {
    expect(parseStepOutputs('tag=v1=2\nempty=\n', [str('tag'), str('empty')])).toEqual({
      ok: true,
      values: { tag: 'v1=2', empty: '' },
    });
  });

  it('reads a heredoc block and keeps a << after = as a one-line value', () => {
    const text = 'meta<<JSON\n{"a":1,\n "b":[2]}\nJSON\ntoken=prefix<<suffix\n';
    expect(parseStepOutputs(text, [json('meta'), str('token')])).toEqual({
      ok: true,
      values: { meta: '{"a":1,\n "b":[2]}', token: 'prefix<<suffix' },
    });
  });

  it('normalises CRLF and CR line endings', () => {
    expect(parseStepOutputs('a=1\r\nb<<E\r\nx\ry\r\nE\r\n', [str('a'), str('b')])).toEqual({
      ok: true,
      values: { a: '1', b: 'x\ny' },
    });
  });

  it('accepts an empty file when nothing is declared', () => {
    expect(parseStepOutputs('', [])).toEqual({ ok: true, values: {} });
  });

  it.each([
    ['unexpected=value\n', [], 'undeclared step output "unexpected"'],
    ['', [str('tag')], 'declared step output "tag" was not emitted'],
    ['a=1\n', [str('a'), str('b')], 'declared step output "b" was not emitted'],
    ['a=1\na=2\n', [str('a')], 'duplicate step output "a"'],
    ['a=1\n\nb=2\n', [str('a'), str('b')], 'empty line at line 2 is not a valid step output record'],
    ['just text\n', [str('a')], 'invalid step output record at line 1'],
    ['=x\n', [str('a')], 'missing output name at line 1'],
    ['<<E\nx\nE\n', [str('a')], 'missing output name at line 1'],
    ['a<<bad-delim\nx\nbad-delim\n', [str('a')], 'invalid multiline delimiter at line 1'],
    ['a<<E\nx\n', [str('a')], 'unclosed multiline output "a"'],
    ['m={not json\n', [json('m')], 'step output "m" is not valid JSON'],
  ] as const)('rejects %j', (text, declared, error) => {
    expect(parseStepOutputs(text, declared)).toEqual({ ok: false, error });
  });

  it('accepts any JSON value for a json output, kept as the emitted text', () => {
    for (const v of ['null', '3', '"s"', '[1, 2]', 'true']) {
      expect(parseStepOutputs(`m=${v}\n`, [json('m')])).toEqual({ ok: true, values: { m: v } });
    }
  });

  it('does not let a record named __proto__ touch the prototype', () => {
    const parsed = parseStepOutputs('__proto__=x\n', [str('__proto__')]);
    expect(parsed.ok && Object.hasOwn(parsed.values, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('readStepOutputs', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it('reads a file, and fails one over the size limit or not UTF-8', async () => {
    const file = join(dir, 'out');
    writeFileSync(file, 'a=hello\n');
    expect(await readStepOutputs(file, [str('a')], 100)).toEqual({ ok: true, values: { a: 'hello' } });
    expect(await readStepOutputs(file, [str('a')], 4)).toEqual({
      ok: false,
      error: 'step outputs exceeded maximum size limit of 4 bytes',
    });
    writeFileSync(file, Buffer.from([0x61, 0x3d, 0xff, 0x0a]));
    expect(await readStepOutputs(file, [str('a')], 100)).toEqual({
      ok: false,
      error: 'step output file is not valid UTF-8',
    });
  });

  it('fails when the file is gone', async () => {
    const result = await readStepOutputs(join(dir, 'missing'), [], 100);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^cannot read the output file: ENOENT/);
  });
});
