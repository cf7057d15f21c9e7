import { describe, expect, it } from 'vitest';
import { canonicalJson, describeFields, differingFields, sameJson } from './canonicalJson';

describe('canonicalJson', () => {
  it('writes the same text for records whose keys come in another order, at every level', () => {
    const a = { b: 1, a: { y: [1, { q: 1, p: 2 }], x: null } };
    const b = { a: { x: null, y: [1, { p: 2, q: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[1,{"p":2,"q":1}]},"b":1}');
  });

  it('keeps array order and tells null from a missing field', () => {
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
    // A field set to undefined is not written to JSON, so it equals a missing one.
    expect(sameJson({ a: undefined }, {})).toBe(true);
  });
});

describe('differingFields', () => {
  it('names the top-level fields that differ, on either side', () => {
    expect(differingFields({ a: 1, b: { c: 1 }, d: 1 }, { a: 1, b: { c: 2 }, e: 1 })).toEqual([
      'b',
      'd',
      'e',
    ]);
    expect(differingFields({ a: [1] }, { a: [1] })).toEqual([]);
  });

  it('describes a long list by its first fields and how many more', () => {
    expect(describeFields(['status'])).toBe('field status differs');
    expect(describeFields(['a', 'b'])).toBe('fields a, b differ');
    expect(describeFields(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])).toBe(
      'fields a, b, c, d, e, f and 2 more differ',
    );
  });
});
