import { describe, expect, it } from 'vitest';
import { parseRunHint } from './runHint';

describe('parseRunHint', () => {
  it('reads the run, its attempt and the state it entered', () => {
    expect(parseRunHint('20261130-011530-1a2b3c4d 2 running')).toEqual({
      runId: '20261130-011530-1a2b3c4d',
      attempt: 2,
      state: 'running',
    });
  });

  it('takes a hint naming only the run (an earlier version) or a malformed attempt as the run alone', () => {
    expect(parseRunHint('sched-0123456789ab-20261130T0115Z')).toEqual({
      runId: 'sched-0123456789ab-20261130T0115Z',
    });
    expect(parseRunHint('r1 x running')).toEqual({ runId: 'r1' });
    expect(parseRunHint('r1 0 running')).toEqual({ runId: 'r1' });
    expect(parseRunHint('r1 2')).toEqual({ runId: 'r1' });
  });
});
