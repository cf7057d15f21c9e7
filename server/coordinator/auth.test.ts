import { describe, expect, it } from 'vitest';
import { hasBearerToken } from './auth';

describe('hasBearerToken', () => {
  it('accepts exactly the configured token after "Bearer "', () => {
    expect(hasBearerToken('Bearer abc123', 'abc123')).toBe(true);
    expect(hasBearerToken('bearer abc123', 'abc123')).toBe(true);
  });

  it('refuses a missing header, another scheme, another token and a prefix of the token', () => {
    expect(hasBearerToken(undefined, 'abc123')).toBe(false);
    expect(hasBearerToken('Basic abc123', 'abc123')).toBe(false);
    expect(hasBearerToken('Bearer abc124', 'abc123')).toBe(false);
    expect(hasBearerToken('Bearer abc', 'abc123')).toBe(false);
    expect(hasBearerToken('Bearer ', 'abc123')).toBe(false);
  });
});
