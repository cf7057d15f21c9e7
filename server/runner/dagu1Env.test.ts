import { describe, expect, it } from 'vitest';
import { runEnvBackticks } from './dagu1Env';

const opts = { shell: ['sh'], cwd: '/', env: { NODE_ENV: 'test' as const, PATH: process.env.PATH } };

describe('runEnvBackticks', () => {
  it('runs the backtick parts of the named entries, in order, and keeps $( ) and other entries as text', async () => {
    const r = await runEnvBackticks(
      { A: 'x-`echo one`-`printf two`', B: '`echo $A`', C: '`echo not-run`', D: '$(echo kept)' },
      ['A', 'B', 'D'],
      opts,
    );
    expect(r).toEqual({
      ok: true,
      env: { A: 'x-one-two', B: 'x-one-two', C: '`echo not-run`', D: '$(echo kept)' },
    });
  });

  it('fails with the entry and the command that failed', async () => {
    const r = await runEnvBackticks({ A: '`exit 3`' }, ['A'], opts);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^env A: command `exit 3` failed/);
  });
});
