import { describe, expect, it } from 'vitest';
import { goTrimSpace } from './goTrimSpace';

describe('goTrimSpace', () => {
  it('removes ASCII and Unicode white space from both ends only', () => {
    expect(goTrimSpace(' \t\n\v\f\r a b \r\n')).toBe('a b');
    expect(goTrimSpace('\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000x\u3000')).toBe('x');
    expect(goTrimSpace('')).toBe('');
    expect(goTrimSpace(' \n ')).toBe('');
  });

  it('removes NEL (U+0085), as Go does and String.trim does not', () => {
    expect(goTrimSpace('\u0085value\u0085')).toBe('value');
  });

  it('keeps a byte order mark (U+FEFF), as Go does and String.trim does not', () => {
    expect(goTrimSpace('\ufeffvalue\n')).toBe('\ufeffvalue');
  });
});
