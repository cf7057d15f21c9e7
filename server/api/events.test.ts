import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BadRequestError } from './errors';
import { FOLLOW_POLL_MS, listEvents, MAX_FOLLOW_WAIT_MS, parseEventsQuery, type EventsQuery } from './events';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

const query = (text: string) => parseEventsQuery(new URLSearchParams(text));

/** The BadRequestError message a query string is refused with. */
function refusal(text: string): string {
  try {
    query(text);
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestError);
    return (err as Error).message;
  }
  throw new Error(`query ${text} was accepted`);
}

describe('parseEventsQuery', () => {
  it('reads repeated types, the cursor, the limit and the follow wait', () => {
    expect(query('type=dag.run.queued&type=dag.run.failed&after=1796000000000-0000abcdef&limit=5')).toEqual({
      types: ['dag.run.queued', 'dag.run.failed'],
      after: '1796000000000-0000abcdef',
      limit: 5,
      follow: false,
      waitMs: 0,
    });
    expect(query('follow=1&wait=1500')).toMatchObject({ types: [], follow: true, waitMs: 1500 });
    expect(query('follow=true')).toMatchObject({ follow: true, waitMs: MAX_FOLLOW_WAIT_MS });
  });

  it('refuses bad values with a 400 that names the parameter', () => {
    expect(refusal('limit=0')).toMatch(/^limit: /);
    expect(refusal('limit=ten')).toMatch(/^limit: must be a whole number/);
    expect(refusal('after=yesterday')).toMatch(/^after: must be the id of an event/);
    expect(refusal('type=dag run')).toMatch(/^type\.0: /);
    expect(refusal('follow=1&wait=30001')).toMatch(/^wait: /);
    expect(refusal('follow=yes')).toMatch(/^follow: /);
    expect(refusal('wait=100')).toBe('wait: only allowed with follow=1');
    expect(refusal('limit=1&limit=2')).toMatch(/^limit: /);
    expect(refusal('types=dag.run.queued')).toMatch(/types/);
  });
});

describe('listEvents', () => {
  async function seed() {
    const queued = await svc.events.append('dag.run.queued', {
      run_id: 'r1',
      worker_selector: { zone: 'b' },
    });
    svc.clock.advance(1000);
    const lock = await svc.events.append('scheduler.lock.acquired', { instance: 'a' });
    svc.clock.advance(1000);
    const failed = await svc.events.append('dag.run.failed', { run_id: 'r1' });
    return { queued, lock, failed };
  }

  it('lists events of the asked types after the cursor, oldest first, up to the limit', async () => {
    const { queued, lock, failed } = await seed();
    const all = await listEvents(svc, query(''));
    expect(all.events.map((e) => e.id)).toEqual([queued.id, lock.id, failed.id]);
    expect(all.next_after).toBe(failed.id);

    const runs = await listEvents(svc, query('type=dag.run.queued&type=dag.run.failed'));
    expect(runs.events.map((e) => e.type)).toEqual(['dag.run.queued', 'dag.run.failed']);
    expect(runs.events[0].data).toEqual({ run_id: 'r1', worker_selector: { zone: 'b' } });

    const after = await listEvents(svc, query(`after=${queued.id}&limit=1`));
    expect(after.events.map((e) => e.id)).toEqual([lock.id]);
  });

  it('keeps the cursor when nothing new matched', async () => {
    const { failed } = await seed();
    expect(await listEvents(svc, query(`after=${failed.id}`))).toEqual({ events: [], next_after: failed.id });
    expect(await listEvents(svc, query('type=dag.run.succeeded'))).toEqual({ events: [], next_after: null });
  });

  describe('following', () => {
    /** A sleep that moves the test clock, running `onSleep` on the n-th sleep. */
    function fakeSleep(onSleep: (n: number) => Promise<void> = async () => {}) {
      const sleeps: number[] = [];
      const sleep = async (ms: number) => {
        sleeps.push(ms);
        svc.clock.advance(ms);
        await onSleep(sleeps.length);
      };
      return { sleeps, sleep };
    }

    it('answers at once when a matching event is already there', async () => {
      const { failed } = await seed();
      const { sleeps, sleep } = fakeSleep();
      const r = await listEvents(svc, query('type=dag.run.failed&follow=1&wait=5000'), { sleep });
      expect(r.events.map((e) => e.id)).toEqual([failed.id]);
      expect(sleeps).toEqual([]);
    });

    it('answers with the first matching event appended during the wait', async () => {
      const { failed } = await seed();
      const { sleeps, sleep } = fakeSleep(async (n) => {
        if (n === 2) await svc.events.append('scheduler.lock.lost', {});
        if (n === 4) await svc.events.append('dag.run.queued', { run_id: 'r2' });
      });
      const q: EventsQuery = query(`type=dag.run.queued&after=${failed.id}&follow=1&wait=10000`);
      const r = await listEvents(svc, q, { sleep });
      expect(r.events.map((e) => e.data.run_id)).toEqual(['r2']);
      expect(sleeps).toEqual([FOLLOW_POLL_MS, FOLLOW_POLL_MS, FOLLOW_POLL_MS, FOLLOW_POLL_MS]);
    });

    it('answers with an empty list once the wait is over, polling every 200 ms', async () => {
      const { failed } = await seed();
      const { sleeps, sleep } = fakeSleep();
      const start = svc.clock.monoMs();
      const r = await listEvents(svc, query(`after=${failed.id}&follow=1&wait=1100`), { sleep });
      expect(r).toEqual({ events: [], next_after: failed.id });
      expect(sleeps).toEqual([200, 200, 200, 200, 200, 100]);
      expect(svc.clock.monoMs() - start).toBe(1100);
    });

    it('stops waiting when the client goes away', async () => {
      const controller = new AbortController();
      const { sleeps, sleep } = fakeSleep(async (n) => {
        if (n === 2) controller.abort();
      });
      const r = await listEvents(svc, query('follow=1&wait=30000'), { sleep, signal: controller.signal });
      expect(r.events).toEqual([]);
      expect(sleeps).toHaveLength(2);
    });
  });
});
