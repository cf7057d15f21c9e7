import { describe, expect, it } from 'vitest';
import { lighten } from './darkHighlight';

describe('lighten', () => {
  it('mixes a colour with white', () => {
    expect(lighten('#221199', 0)).toBe('#221199');
    expect(lighten('#219', 1)).toBe('#ffffff');
    expect(lighten('#000000', 0.5)).toBe('#808080');
    expect(lighten('#219', 0.6)).toBe('#a7a0d6');
  });

  it('leaves what is not a hex colour alone', () => {
    expect(lighten('red', 0.6)).toBe('red');
    expect(lighten('#12345', 0.6)).toBe('#12345');
  });
});
