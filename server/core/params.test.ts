import { describe, expect, it } from 'vitest';
import {
  checkParamValue,
  defaultParamList,
  formatParam,
  layParams,
  parseParamArgs,
  parseParamString,
  paramList,
  parseParamWord,
  rawJsonParams,
  readParamList,
  resolveRunParams,
  splitParamString,
} from './params';
import type { ParamRichSpec, ParamSpec } from './types';

const pos = (value: string): ParamSpec => ({ name: null, value });
const named = (name: string, value: string): ParamSpec => ({ name, value });

function words(s: string): string[] {
  const r = splitParamString(s);
  if (!r.ok) throw new Error(r.error);
  return r.words;
}

describe('parseParamWord', () => {
  it('reads KEY=value as a named parameter, splitting at the first "="', () => {
    expect(parseParamWord('DATE=2026-11-30')).toEqual(named('DATE', '2026-11-30'));
    expect(parseParamWord('Q=a=b')).toEqual(named('Q', 'a=b'));
    expect(parseParamWord('EMPTY=')).toEqual(named('EMPTY', ''));
  });

  it('reads anything without a valid name before "=" as a positional value', () => {
    expect(parseParamWord('hello')).toEqual(pos('hello'));
    expect(parseParamWord('--flag=1')).toEqual(pos('--flag=1'));
    expect(parseParamWord('=x')).toEqual(pos('=x'));
    expect(parseParamWord('1A=x')).toEqual(pos('1A=x'));
  });

  it('reads N=value as the positional param at place N, as Dagu does', () => {
    expect(parseParamWord('2=x')).toEqual(named('2', 'x'));
  });

  it('writes a parameter back to the same word', () => {
    for (const w of ['A=1', 'plain', 'X=', '--f=1']) expect(formatParam(parseParamWord(w))).toBe(w);
  });
});

describe('splitParamString', () => {
  it('splits on any whitespace and ignores leading, trailing and repeated blanks', () => {
    expect(words('  a b\tc\n d  ')).toEqual(['a', 'b', 'c', 'd']);
    expect(words('')).toEqual([]);
  });

  it('keeps single-quoted text literally, including backslashes and dollars', () => {
    expect(words(`'a b' 'c\\d' '$HOME'`)).toEqual(['a b', 'c\\d', '$HOME']);
  });

  it('allows \\" \\\\ \\$ and \\` escapes inside double quotes and keeps other backslashes', () => {
    expect(words(`"say \\"hi\\"" "a\\\\b" "\\$x" "c\\nd"`)).toEqual(['say "hi"', 'a\\b', '$x', 'c\\nd']);
  });

  it('joins quoted and unquoted parts of one word, as in KEY="a b"', () => {
    expect(words(`NAME="Jane Doe" X='1'2 "" ''`)).toEqual(['NAME=Jane Doe', 'X=12', '', '']);
  });

  it('keeps the character after a backslash outside quotes', () => {
    expect(words('a\\ b c\\"d')).toEqual(['a b', 'c"d']);
    expect(words('a\\\nb')).toEqual(['ab']);
    expect(words('trailing\\')).toEqual(['trailing\\']);
  });

  it('never expands anything', () => {
    expect(words('$HOME $(id) `id` *.txt ~ ${X:-y}')).toEqual([
      '$HOME',
      '$(id)',
      '`id`',
      '*.txt',
      '~',
      '${X:-y}',
    ]);
  });

  it('reports an unterminated quote with its position', () => {
    expect(splitParamString(`a 'b c`)).toEqual({
      ok: false,
      error: 'unterminated single quote at position 3',
    });
    expect(splitParamString(`"x`)).toEqual({ ok: false, error: 'unterminated double quote at position 1' });
  });
});

function rich(name: string, over: Partial<ParamRichSpec> & { default?: string } = {}): ParamSpec {
  const { default: def, ...checks } = over;
  return {
    name,
    value: def ?? '',
    rich: {
      has_default: def !== undefined,
      eval: null,
      description: '',
      type: null,
      required: false,
      enum: null,
      minimum: null,
      maximum: null,
      min_length: null,
      max_length: null,
      pattern: null,
      ...checks,
    },
  };
}

function runList(declared: ParamSpec[], overrides: ParamSpec[]): string[] {
  const r = resolveRunParams(declared, overrides);
  if (!r.ok) throw new Error(r.error);
  return r.list;
}

function refusal(declared: ParamSpec[], overrides: ParamSpec[]): string {
  const r = resolveRunParams(declared, overrides);
  if (r.ok) throw new Error(`accepted: ${r.list.join(' ')}`);
  return r.error;
}

describe('parseParamString (Dagu tokens)', () => {
  it('reads name=value tokens, double-quoted values with JSON escapes and backtick tokens as text', () => {
    expect(parseParamString('A=1 B="two words" C="say \\"hi\\"" D=`echo hi` plain')).toEqual([
      named('A', '1'),
      named('B', 'two words'),
      named('C', 'say "hi"'),
      named('D', '`echo hi`'),
      pos('plain'),
    ]);
  });

  it('treats single quotes as ordinary characters', () => {
    expect(parseParamString("X='a b'")).toEqual([named('X', "'a"), pos("b'")]);
  });

  it('reads a JSON object as named params sorted by name, and a JSON array item by item', () => {
    expect(parseParamString('{"b": 2, "a": "x y"}')).toEqual([named('a', 'x y'), named('b', '2')]);
    expect(parseParamString('["one", 2, {"K": true}]')).toEqual([pos('one'), pos('2'), named('K', 'true')]);
  });

  it('falls back to tokens when braces hold no valid JSON', () => {
    expect(parseParamString('{not json}')).toEqual([pos('{not'), pos('json}')]);
  });
});

describe('parseParamArgs', () => {
  it('takes each word as one param and a single JSON word as JSON', () => {
    expect(parseParamArgs(['A=x y', 'b c'])).toEqual([named('A', 'x y'), pos('b c')]);
    expect(parseParamArgs(['{"A":"1"}'])).toEqual([named('A', '1')]);
    expect(parseParamArgs(['{"A":"1"}', 'x'])).toEqual([pos('{"A":"1"}'), pos('x')]);
  });
});

describe('layParams and resolveRunParams (Dagu override rules)', () => {
  it('replaces a named default and keeps the declared order', () => {
    expect(runList([named('A', '1'), named('B', '2')], [named('B', 'x')])).toEqual(['A=1', 'B=x']);
  });

  it('refuses a name the DAG does not declare when it declares any named param, naming both sides', () => {
    expect(refusal([named('A', '1'), named('B', '2')], [named('ZZ', '1'), named('C', '2')])).toBe(
      'unknown parameter(s): "C", "ZZ"; accepted parameters are: A, B',
    );
  });

  it('accepts and appends any name when the DAG declares only positional params or none', () => {
    expect(runList([pos('a')], [named('X', '1')])).toEqual(['1=a', 'X=1']);
    expect(runList([], [named('X', '1'), pos('p')])).toEqual(['X=1', '2=p']);
  });

  it('names plain positional values by their place: a caller value replaces only the default at its place', () => {
    // Dagu's parseParams names the caller's k-th word "k" and runtimePairsFromEntries the DAG's i-th entry
    // "i"; overrideParams then matches by name (spec/params.go, spec/dparams_runtime.go).
    expect(runList([named('A', '1'), pos('p'), named('B', '2')], [pos('x'), pos('y')])).toEqual([
      'A=1',
      '2=y',
      'B=2',
      '1=x',
    ]);
    expect(runList([pos('a'), pos('b')], [pos('x')])).toEqual(['1=x', '2=b']);
    expect(runList([pos('a'), pos('b')], [named('K', 'v'), pos('x')])).toEqual(['1=a', '2=x', 'K=v']);
    expect(runList([pos('a'), pos('b')], [named('2', 'x')])).toEqual(['1=a', '2=x']);
  });

  it('fills declared entries in order with positional values when the DAG has a rich definition', () => {
    // Dagu's applyOverridePairsTracked (the path of DAGs with `- name: X` definitions).
    const c = rich('C', { default: 'c' });
    expect(runList([named('A', '1'), pos('p'), c], [pos('x'), pos('y')])).toEqual(['A=x', '2=y', 'C=c']);
  });

  it('refuses more positional values than declared entries', () => {
    expect(refusal([pos('a'), pos('b')], [pos('1'), pos('2'), pos('3')])).toBe(
      'too many positional params: expected at most 2, got 3',
    );
  });

  it('leaves out a definition with no default that nobody gave, and one waiting for its eval', () => {
    const declared = [rich('ENV', { description: 'x' }), rich('DATE', { eval: '`date`', default: 'd' })];
    expect(runList(declared, [])).toEqual([]);
    expect(runList(declared, [named('DATE', 'given')])).toEqual(['DATE=given']);
    expect(defaultParamList([named('A', '1'), ...declared])).toEqual(['A=1']);
  });

  it('tracks which values the caller supplied', () => {
    const r = layParams([named('A', '1'), named('B', '2')], [named('B', 'x')]);
    expect(r.ok && r.params.map((p) => p.supplied)).toEqual([false, true]);
  });

  it('checks a caller value against the rich definition', () => {
    const declared = [rich('ENV', { type: 'string', enum: ['dev', 'prd'], default: 'dev' })];
    expect(runList(declared, [named('ENV', 'prd')])).toEqual(['ENV=prd']);
    expect(refusal(declared, [named('ENV', 'qa')])).toBe('parameter "ENV" must be one of dev, prd, got "qa"');
  });

  it('refuses a missing required param unless its eval will give it a value', () => {
    expect(refusal([rich('R', { required: true })], [])).toBe('parameter "R" is required');
    expect(runList([rich('R', { required: true, eval: '`x`' })], [])).toEqual([]);
  });
});

describe('readParamList', () => {
  it('reads a stored list back onto the declared entries, extras after them', () => {
    const declared = [pos('a'), named('B', '2'), rich('C', { eval: '`x`', default: 'c' })];
    const read = readParamList(declared, ['z', 'EXTRA=1']);
    expect(read.map((p) => [p.name, p.value, p.has_value])).toEqual([
      ['1', 'z', true],
      ['B', '2', true],
      ['C', 'c', false],
      ['EXTRA', '1', true],
    ]);
  });
});

describe('a stored list read back', () => {
  it('gives the same list, so a restart runs with the same params', () => {
    const declared = [named('A', '1'), pos('p'), named('B', '2'), pos('q')];
    const list = runList(declared, [pos('x'), named('B', 'b c'), pos('$(y)')]);
    expect(list).toEqual(['A=1', '2=p', 'B=b c', '4=q', '1=x', '3=$(y)']);
    expect(paramList(readParamList(declared, list))).toEqual(list);
    // A record written before positional params were named by place reads back the same way.
    expect(paramList(readParamList(declared, ['A=1', 'z', 'B=2', 'w']))).toEqual([
      'A=1',
      '2=z',
      'B=2',
      '4=w',
    ]);
  });
});

describe('checkParamValue', () => {
  const check = (over: Partial<ParamRichSpec>, value: string) =>
    checkParamValue('P', rich('P', over).rich!, value);

  it('checks types', () => {
    expect(check({ type: 'integer' }, ' 42 ')).toBeNull();
    expect(check({ type: 'integer' }, '4.2')).toBe('parameter "P" must be an integer, got "4.2"');
    expect(check({ type: 'number' }, '1e3')).toBeNull();
    expect(check({ type: 'number' }, 'ten')).toBe('parameter "P" must be a number, got "ten"');
    expect(check({ type: 'boolean' }, 'TRUE')).toBeNull();
    expect(check({ type: 'boolean' }, 'yes')).toBe('parameter "P" must be true or false, got "yes"');
  });

  it('compares enum values by the type', () => {
    expect(check({ type: 'integer', enum: ['1', '2'] }, '02')).toBeNull();
    expect(check({ type: 'string', enum: ['1', '2'] }, '02')).toMatch(/must be one of 1, 2/);
  });

  it('checks bounds, lengths in characters and an unanchored pattern', () => {
    expect(check({ type: 'integer', minimum: 1, maximum: 5 }, '0')).toBe(
      'parameter "P" must be at least 1, got "0"',
    );
    expect(check({ type: 'number', maximum: 5 }, '5.5')).toBe('parameter "P" must be at most 5, got "5.5"');
    expect(check({ min_length: 2 }, 'é')).toMatch(/at least 2 characters/);
    expect(check({ max_length: 2 }, 'éé')).toBeNull();
    expect(check({ max_length: 2 }, 'abc')).toMatch(/at most 2 characters/);
    expect(check({ pattern: '^v[0-9]+$' }, 'v12')).toBeNull();
    expect(check({ pattern: '[0-9]' }, 'a1b')).toBeNull();
    expect(check({ pattern: '^v[0-9]+$' }, 'x')).toBe(
      'parameter "P" must match the pattern ^v[0-9]+$, got "x"',
    );
  });
});

describe('rawJsonParams (the caller text Dagu passes on as DAG_PARAMS_JSON)', () => {
  it('gives a JSON object or array trimmed and otherwise unchanged', () => {
    expect(rawJsonParams('  {"B": 2, "A": "x"} ')).toBe('{"B": 2, "A": "x"}');
    expect(rawJsonParams('[{"A":1}, "p"]')).toBe('[{"A":1}, "p"]');
  });

  it('gives null for tokens, invalid JSON and JSON that is neither object nor array', () => {
    expect(rawJsonParams('A=1 B=2')).toBeNull();
    expect(rawJsonParams('{A=1}')).toBeNull();
    expect(rawJsonParams('"text"')).toBeNull();
    expect(rawJsonParams('3')).toBeNull();
  });
});
