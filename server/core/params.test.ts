import { describe, expect, it } from 'vitest';
import { formatParam, parseParamWord, resolveParams, splitParamString } from './params';
import type { ParamSpec } from './types';

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

  it('writes a parameter back to the same word', () => {
    for (const w of ['A=1', 'plain', 'X=', '--f=1']) expect(formatParam(parseParamWord(w))).toBe(w);
  });
});

describe('resolveParams', () => {
  const defaults = [pos('first'), named('DATE', 'today'), pos('second'), named('MODE', 'fast')];

  it('returns the defaults when there are no overrides', () => {
    expect(resolveParams(defaults, [])).toEqual({
      positional: ['first', 'second'],
      named: { DATE: 'today', MODE: 'fast' },
      list: ['first', 'DATE=today', 'second', 'MODE=fast'],
    });
  });

  it('replaces a named default in place and adds an unknown name at the end', () => {
    const r = resolveParams(defaults, ['MODE=slow', 'EXTRA=1']);
    expect(r.named).toEqual({ DATE: 'today', MODE: 'slow', EXTRA: '1' });
    expect(r.list).toEqual(['first', 'DATE=today', 'second', 'MODE=slow', 'EXTRA=1']);
  });

  it('replaces positional defaults by index and appends extra positional values', () => {
    const r = resolveParams(defaults, ['one', 'two', 'three']);
    expect(r.positional).toEqual(['one', 'two', 'three']);
    expect(r.list).toEqual(['one', 'DATE=today', 'two', 'MODE=fast', 'three']);
  });

  it('lets the last override of a name win', () => {
    expect(resolveParams([], ['A=1', 'A=2']).named).toEqual({ A: '2' });
  });

  it('keeps shell metacharacters, quotes and spaces verbatim', () => {
    const nasty = ['a; rm -rf /', '$(touch /tmp/pwned)', '`id`', 'it\'s "quoted"', '  spaced  ', '*'];
    const r = resolveParams([], [...nasty, ...nasty.map((v) => `V=${v}`)]);
    expect(r.positional).toEqual(nasty);
    expect(r.named.V).toBe('*');
    expect(r.list.slice(0, nasty.length)).toEqual(nasty);
  });

  it('treats a parameter named __proto__ as an ordinary name', () => {
    const r = resolveParams([], ['__proto__=x']);
    expect(Object.keys(r.named)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(r.named)).toBe(Object.prototype);
  });

  it('reads its own list back to the same result, so a retry runs with the same params', () => {
    const first = resolveParams(defaults, ['x', 'MODE=a b', 'NEW=$(y)']);
    expect(resolveParams([], first.list)).toEqual(first);
  });

  it('does not change the defaults it was given', () => {
    const input = [named('A', '1')];
    resolveParams(input, ['A=2']);
    expect(input).toEqual([named('A', '1')]);
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
