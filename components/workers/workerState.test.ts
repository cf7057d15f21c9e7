import { describe, expect, it } from 'vitest';
import { capacityUse, workerStateOf, workerStateTone } from './workerState';

describe('workerStateOf', () => {
  it('takes the state the server judged', () => {
    expect(workerStateOf({ state: 'late', heartbeat_age_ms: 0 }, 30_000)).toBe('late');
    expect(workerStateOf({ state: 'lost', heartbeat_age_ms: 0 }, 30_000)).toBe('lost');
  });

  it('judges a worker without a state by its heartbeat age against the stale threshold', () => {
    expect(workerStateOf({ heartbeat_age_ms: 15_000 }, 30_000)).toBe('healthy');
    expect(workerStateOf({ heartbeat_age_ms: 15_001 }, 30_000)).toBe('late');
    expect(workerStateOf({ heartbeat_age_ms: 30_000 }, 30_000)).toBe('late');
    expect(workerStateOf({ state: null, heartbeat_age_ms: 30_001 }, 30_000)).toBe('lost');
  });
});

describe('workerStateTone', () => {
  it('colours healthy as ok, late as a warning and lost as bad', () => {
    expect(workerStateTone('healthy')).toBe('ok');
    expect(workerStateTone('late')).toBe('warn');
    expect(workerStateTone('lost')).toBe('bad');
  });
});

describe('capacityUse', () => {
  it('gives the share of capacity in use and its text', () => {
    expect(capacityUse(1, 4)).toEqual({ text: '1 / 4', fraction: 0.25, full: false });
    expect(capacityUse(0, 2)).toEqual({ text: '0 / 2', fraction: 0, full: false });
  });

  it('caps the bar at full when a worker reports more runs than it allows', () => {
    expect(capacityUse(4, 4)).toEqual({ text: '4 / 4', fraction: 1, full: true });
    expect(capacityUse(5, 4)).toEqual({ text: '5 / 4', fraction: 1, full: true });
  });

  it('treats a worker that allows no runs as full', () => {
    expect(capacityUse(0, 0)).toEqual({ text: '0 / 0', fraction: 0, full: true });
  });
});
