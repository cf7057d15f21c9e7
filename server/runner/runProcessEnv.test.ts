import { describe, expect, it } from 'vitest';
import { restoreStashedEnv, runProcessEnv, STASHED_CA_CERTS } from './runProcessEnv';

describe('run process environment', () => {
  it('starts the run process without the CA bundle and gives it back to its steps unchanged', () => {
    const scheduler = { PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem', FOO: 'bar' };
    const child: Record<string, string | undefined> = runProcessEnv(scheduler);
    expect(child.NODE_EXTRA_CA_CERTS).toBeUndefined();
    expect(child[STASHED_CA_CERTS]).toBe('/etc/ssl/extra.pem');
    expect(scheduler.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/extra.pem'); // the scheduler's own is untouched

    restoreStashedEnv(child);
    expect(child).toEqual(scheduler);
  });

  it('leaves an environment without the variable as it is', () => {
    const env: Record<string, string | undefined> = { PATH: '/bin' };
    expect(runProcessEnv(env)).toBe(env);
    restoreStashedEnv(env);
    expect(env).toEqual({ PATH: '/bin' });
  });
});
