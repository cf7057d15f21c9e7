import { describe, expect, it } from 'vitest';
import { signInNeed } from './signInNeed';

describe('signInNeed', () => {
  it('asks for nothing on a server without auth, even after a 401', () => {
    expect(signInNeed({ auth: 'none', authenticated: true }, 1000, 2000)).toBeNull();
  });

  it('asks for a token when the server uses tokens and this browser is not signed in', () => {
    expect(signInNeed({ auth: 'token', authenticated: false }, 1000, null)).toBe('token');
  });

  it('asks for nothing when the browser is signed in and no call was refused since', () => {
    expect(signInNeed({ auth: 'token', authenticated: true }, 1000, null)).toBeNull();
    expect(signInNeed({ auth: 'token', authenticated: true }, 2000, 1000)).toBeNull();
  });

  it('asks for a token again when a call was refused after the session said signed in', () => {
    expect(signInNeed({ auth: 'token', authenticated: true }, 1000, 2000)).toBe('token');
  });

  it('only explains the browser prompt under basic auth', () => {
    expect(signInNeed({ auth: 'basic', authenticated: false }, 1000, 2000)).toBe('basic');
    expect(signInNeed({ auth: 'basic', authenticated: false }, 1000, null)).toBeNull();
  });

  it('falls back to the token form when the session is unknown and a call was refused', () => {
    expect(signInNeed(null, 0, 5)).toBe('token');
    expect(signInNeed(null, 0, null)).toBeNull();
  });
});
