import { describe, expect, it } from 'vitest';
import { FakeTime } from '../testing/fakeTime';
import { TimerLoop } from './timerLoop';

/** A loop whose passes record when they start (monotonic ms) and can be held open by the test. */
function recordingLoop(time: FakeTime, delays: { pass: number; afterError?: number }) {
  const starts: number[] = [];
  const errors: unknown[] = [];
  let active = 0;
  let maxActive = 0;
  let hold: Promise<void> | null = null;
  let fail = false;
  const loop = new TimerLoop({
    timers: time,
    pass: async () => {
      starts.push(time.monoMs());
      active += 1;
      maxActive = Math.max(maxActive, active);
      try {
        if (hold) await hold;
        if (fail) throw new Error('storage error');
        return delays.pass;
      } finally {
        active -= 1;
      }
    },
    onError: (err) => {
      errors.push(err);
      return delays.afterError ?? delays.pass;
    },
  });
  return {
    loop,
    starts,
    errors,
    maxActive: () => maxActive,
    holdPasses: () => {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return () => {
        hold = null;
        release();
      };
    },
    failPasses: (on: boolean) => (fail = on),
  };
}

describe('TimerLoop', () => {
  it('runs the first pass after the first delay and each next one the delay its predecessor returned', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 1000 });
    r.loop.start(250);
    await time.advance(3500);
    expect(r.starts).toEqual([250, 1250, 2250, 3250]);
  });

  it('waits for a slow pass to end before arming the next: passes never overlap', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100 });
    const release = r.holdPasses();
    r.loop.start(0);
    await time.advance(1000);
    expect(r.starts).toEqual([0]);
    release();
    await time.advance(250);
    expect(r.starts).toEqual([0, 1100, 1200]);
    expect(r.maxActive()).toBe(1);
  });

  it('hands a failed pass to onError and goes on after the delay onError returns', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100, afterError: 1000 });
    r.failPasses(true);
    r.loop.start(0);
    await time.advance(50);
    expect(r.errors).toHaveLength(1);
    expect((r.errors[0] as Error).message).toBe('storage error');
    r.failPasses(false);
    await time.advance(1100);
    expect(r.starts).toEqual([0, 1000, 1100]);
  });

  it('starts no pass after stop, and stop resolves only once the pass in progress has ended', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100 });
    const release = r.holdPasses();
    r.loop.start(0);
    await time.advance(10);
    let stopped = false;
    const stopping = r.loop.stop().then(() => (stopped = true));
    await time.advance(10);
    expect(stopped).toBe(false);
    expect(r.loop.stopped).toBe(true);
    release();
    await stopping;
    await time.advance(10_000);
    expect(r.starts).toEqual([0]);
  });

  it('cancels the armed timer on stop', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100 });
    r.loop.start(500);
    await time.advance(100);
    await r.loop.stop();
    await time.advance(10_000);
    expect(r.starts).toEqual([]);
  });

  it('never starts once stopped, even when start comes after stop (a service stopped while starting)', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100 });
    await r.loop.stop();
    r.loop.start(0);
    await time.advance(1000);
    expect(r.starts).toEqual([]);
  });

  it('ignores a second start: one chain of passes, not two', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100 });
    r.loop.start(0);
    r.loop.start(0);
    await time.advance(250);
    expect(r.starts).toEqual([0, 100, 200]);
  });

  it('wake() starts the waiting pass at once, and the chain goes on from there', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 1000 });
    r.loop.start(0);
    await time.advance(300);
    r.loop.wake();
    await time.advance(0);
    expect(r.starts).toEqual([0, 300]);
    await time.advance(1000);
    expect(r.starts).toEqual([0, 300, 1300]);
  });

  it('a wake() during a pass starts the next one as soon as it ends, never two at once', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 1000 });
    const release = r.holdPasses();
    r.loop.start(0);
    await time.advance(100);
    r.loop.wake();
    r.loop.wake();
    await time.advance(100);
    release();
    await time.advance(0);
    expect(r.starts).toEqual([0, 200]);
    expect(r.maxActive()).toBe(1);
    await time.advance(900);
    expect(r.starts).toEqual([0, 200]);
  });

  it('wake() does nothing before start or after stop', async () => {
    const time = new FakeTime(0);
    const r = recordingLoop(time, { pass: 100 });
    r.loop.wake();
    await time.advance(500);
    expect(r.starts).toEqual([]);
    r.loop.start(1000);
    await r.loop.stop();
    r.loop.wake();
    await time.advance(2000);
    expect(r.starts).toEqual([]);
  });
});
