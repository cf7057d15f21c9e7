import { describe, expect, it } from 'vitest';
import { goJson, GoStruct } from './goJson';

describe('goJson', () => {
  it('sorts map keys by their bytes, as Go does, not in JavaScript property order', () => {
    expect(goJson({ b: 1, 10: 2, 9: 3, B: 4 })).toBe('{"10":2,"9":3,"B":4,"b":1}');
  });

  it('escapes HTML characters and line separators, and replaces lone surrogates', () => {
    expect(goJson('<a href="x">&</a>\u2028\ud800')).toBe(
      '"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e\\u2028\ufffd"',
    );
  });

  it('indents like MarshalIndent, with empty containers on one line', () => {
    expect(goJson({ a: [], b: {}, c: [1, { d: null }] }, '  ')).toBe(
      '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    {\n      "d": null\n    }\n  ]\n}',
    );
  });

  it('keeps struct fields in declaration order and leaves out undefined ones', () => {
    expect(
      goJson(
        new GoStruct([
          ['z', 1],
          ['a', undefined],
          ['m', null],
        ]),
      ),
    ).toBe('{"z":1,"m":null}');
  });
});
