import { describe, expect, it } from 'vitest';
import type { ParamSpec } from '../core/types';
import { applyChildParams, parseParamText } from './childParams';

const named = (name: string, value: string): ParamSpec => ({ name, value });
const pos = (value: string): ParamSpec => ({ name: null, value });

describe('applyChildParams', () => {
  it('replaces a named default and keeps the others in their order', () => {
    const r = applyChildParams([named('A', '1'), named('B', '2')], [named('B', 'x')]);
    expect(r).toEqual({ ok: true, list: ['A=1', 'B=x'] });
  });

  it('refuses a name the child does not declare when it declares named params', () => {
    const r = applyChildParams([named('REGION', 'us'), named('ENV', 'dev')], [named('COLOR', 'red')]);
    expect(r).toEqual({
      ok: false,
      error: 'unknown parameter(s): "COLOR"; accepted parameters are: ENV, REGION',
    });
  });

  it('appends any name when the child declares only positional params, or none', () => {
    expect(applyChildParams([pos('a')], [named('X', '1')])).toEqual({ ok: true, list: ['1=a', 'X=1'] });
    expect(applyChildParams([], [named('X', '1'), pos('p')])).toEqual({ ok: true, list: ['X=1', '2=p'] });
  });

  it('names positional values by their place, so one replaces only the positional default at its place', () => {
    const r = applyChildParams([named('A', '1'), pos('b')], [pos('x'), pos('y')]);
    expect(r).toEqual({ ok: true, list: ['A=1', '2=y', '1=x'] });
  });

  it('refuses more positional values than the child declares', () => {
    const r = applyChildParams([pos('a')], [pos('x'), pos('y')]);
    expect(r).toEqual({ ok: false, error: 'too many positional params: expected at most 1, got 2' });
  });
});

describe('parseParamText', () => {
  it('reads a JSON object as named params, values as text', () => {
    // Keys in sorted order, as Dagu's parseMapParams reads them.
    expect(parseParamText('{"region":"eu","n":3}')).toEqual({
      ok: true,
      params: [named('n', '3'), named('region', 'eu')],
    });
  });

  it('reads other text as words: NAME=value named, the rest positional', () => {
    expect(parseParamText('a "b c" K=v')).toEqual({
      ok: true,
      params: [pos('a'), pos('b c'), named('K', 'v')],
    });
  });

  it('says what is wrong with an unterminated quote', () => {
    const r = parseParamText('"open');
    expect(r.ok).toBe(false);
  });
});
