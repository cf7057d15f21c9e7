import { describe, expect, it } from 'vitest';
import { exposureWarning, formatListen, isLoopbackHost, securityView } from './security';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  it.each(['0.0.0.0', '::', '10.0.0.5', '128.0.0.1', '127.0.0.256', 'example.com', 'localhost.example', ''])(
    '%s is not',
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
});

describe('securityView', () => {
  it('calls a server beyond loopback without auth exposed, and no other', () => {
    expect(securityView({ mode: 'none' }, { host: '0.0.0.0', port: 8080 })).toEqual({
      auth: 'none',
      exposed_without_auth: true,
      listen: '0.0.0.0:8080',
    });
    expect(securityView({ mode: 'none' }, { host: '127.0.0.1', port: 8080 }).exposed_without_auth).toBe(
      false,
    );
    expect(securityView({ mode: 'token', token: 't' }, { host: '0.0.0.0', port: 1 })).toMatchObject({
      auth: 'token',
      exposed_without_auth: false,
    });
  });

  it('writes IPv6 hosts in brackets', () => {
    expect(formatListen({ host: '::', port: 8080 })).toBe('[::]:8080');
  });
});

describe('exposureWarning', () => {
  it('names the address and the settings that fix it', () => {
    expect(exposureWarning({ host: '0.0.0.0', port: 8080 })).toBe(
      'The console and API listen on 0.0.0.0:8080 without authentication: anyone who can reach this address ' +
        'can start and cancel runs. Set auth.basic or auth.token in config.yaml.',
    );
  });
});
