import { describe, expect, it } from 'vitest';
import { compileGlob, validateGlob } from './fileGlob';

describe('file.list glob patterns (doublestar rules)', () => {
  it.each([
    ['**/*.txt', 'a.txt', true],
    ['**/*.txt', 'x/y/a.txt', true],
    ['*.txt', 'x/a.txt', false],
    ['*', '.hidden', true],
    ['*/*', 'a/.b', true],
    ['?.log', 'a.log', true],
    ['?.log', 'ab.log', false],
    ['a/?', 'a//', false],
    ['[ab].txt', 'b.txt', true],
    ['[!ab].txt', 'b.txt', false],
    ['[^ab].txt', 'c.txt', true],
    ['[a-c]*', 'c9', true],
    ['{a,b}/*', 'b/x', true],
    ['{a,b{c,d}}.go', 'bd.go', true],
    ['{a,b{c,d}}.go', 'b.go', false],
    ['{1..3}', '2', false],
    ['{1..3}', '1..3', true],
    ['out/**', 'out', true],
    ['out/**', 'out/x/y', true],
    ['out/**', 'output', false],
    ['a**b', 'axxb', true],
    ['a**b', 'ax/xb', false],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['!x', '!x', true],
    ['+(a)', '+(a)', true],
    [' *.txt ', 'a.txt', true],
    ['', 'anything/at/all', true],
  ])('%j matches %j: %s', (pattern, path, expected) => {
    expect(validateGlob(pattern)).toBe(true);
    expect(compileGlob(pattern)(path)).toBe(expected);
  });

  it.each(['a[', '[]', '[!]', 'a{b', 'a}b', 'trailing\\', '{a,{b}'])(
    'refuses the malformed pattern %j',
    (pattern) => {
      expect(validateGlob(pattern)).toBe(false);
    },
  );

  it('refuses a pattern whose alternatives multiply past a sane number', () => {
    expect(() => compileGlob('{a,b}'.repeat(13))).toThrow('more than 4096 alternatives');
  });
});
