import { describe, expect, it } from 'vitest';
import { filterHostEnv } from './hostEnv';

describe('filterHostEnv', () => {
  const host = {
    PATH: '/bin',
    HOME: '/home/u',
    LC_TIME: 'C',
    DAGU_HOME: '/d',
    DAG_X: '1',
    KUBERNETES_SERVICE_HOST: 'k',
    XDG_CACHE_HOME: '/c',
    AWS_SECRET_ACCESS_KEY: 'secret',
    HTTPS_PROXY: 'http://proxy',
    ACME_TOKEN: 't',
    NODE_OPTIONS: '--inspect',
    UNSET: undefined,
  };

  it('lets through the fixed names and prefixes only', () => {
    expect(filterHostEnv(host)).toEqual({
      PATH: '/bin',
      HOME: '/home/u',
      LC_TIME: 'C',
      DAGU_HOME: '/d',
      DAG_X: '1',
      KUBERNETES_SERVICE_HOST: 'k',
      XDG_CACHE_HOME: '/c',
    });
  });

  it('adds the names and prefixes the operator configured', () => {
    const env = filterHostEnv(host, { names: ['HTTPS_PROXY'], prefixes: ['ACME_'] });
    expect(env.HTTPS_PROXY).toBe('http://proxy');
    expect(env.ACME_TOKEN).toBe('t');
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
  });
});
