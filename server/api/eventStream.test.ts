import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../store/types';
import { API_ROUTES } from './apiRoutes';
import { LogEventFeed, type EventFeed } from './eventFeed';
import { EventHub, eventHubOf, formatSseMessage, toStreamMessage } from './eventStream';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

/** The `data` of each complete frame in `text`, parsed; comments and `retry:` lines skipped. */
function dataOf(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

async function until<T>(what: string, probe: () => T | undefined, deadlineMs = 10_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('SSE frames', () => {
  it('carries the event ID as the SSE id, and none for messages that are not events', () => {
    expect(formatSseMessage({ id: '1764465270000-00000000ab', type: 'dag.run.running', run_id: 'r' })).toBe(
      'id: 1764465270000-00000000ab\ndata: {"id":"1764465270000-00000000ab","type":"dag.run.running","run_id":"r"}\n\n',
    );
    expect(formatSseMessage({ type: 'scheduler' })).toBe('data: {"type":"scheduler"}\n\n');
  });

  it('keeps what a client needs of an event', () => {
    const record = {
      id: 'x',
      type: 'dag.run.failed',
      data: { run_id: 'r1', dag_name: 'etl', status: 'failed', steps: [{ name: 'a' }] },
    } as unknown as EventRecord;
    expect(toStreamMessage(record)).toEqual({
      id: 'x',
      type: 'dag.run.failed',
      run_id: 'r1',
      dag_name: 'etl',
      status: 'failed',
    });
  });
});

describe('EventHub', () => {
  it('reads the log once per pass for all its clients and gives each client every new event', async () => {
    let reads = 0;
    const inner = new LogEventFeed(svc.events);
    const feed: EventFeed = { read: (wanted) => ((reads += 1), inner.read(wanted)) };
    await svc.events.append('dag.run.queued', { run_id: 'old' });
    const hub = new EventHub(svc, feed);
    const a: string[] = [];
    const b: string[] = [];
    const started = Date.now();
    const stopA = await hub.subscribe((f) => a.push(f));
    const stopB = await hub.subscribe((f) => b.push(f));
    await svc.events.append('dag.run.running', { run_id: 'new', dag_name: 'etl' });
    for (const frames of [a, b]) {
      const got = await until('the event', () => dataOf(frames.join('')).find((m) => m.run_id === 'new'));
      expect(got).toMatchObject({ type: 'dag.run.running', dag_name: 'etl' });
      // What was in the log before the hub started is not sent again.
      expect(dataOf(frames.join('')).some((m) => m.run_id === 'old')).toBe(false);
    }
    // One reader: a pass every 250 ms (plus the priming read), not one per client.
    const passes = (Date.now() - started) / 250;
    expect(reads).toBeLessThanOrEqual(passes + 2);
    stopA();
    expect(hub.clientCount).toBe(1);
    stopB();
    expect(hub.clientCount).toBe(0);
  });
});

describe('EventHub wake-ups', () => {
  it('reads at once on a wake-up of the events topic, and stops listening with its last client', async () => {
    const subscribers = new Set<(about: string | null) => void>();
    const topics: string[] = [];
    svc.wakeups = {
      subscribe: (topic, fn) => {
        topics.push(topic);
        subscribers.add(fn);
        return () => subscribers.delete(fn);
      },
    };
    // Passes an hour apart: only the wake-up can bring the event within the test's deadline.
    const hub = new EventHub(svc, new LogEventFeed(svc.events), 3_600_000);
    const frames: string[] = [];
    const stop = await hub.subscribe((f) => frames.push(f));
    expect(topics).toEqual(['events']);
    await svc.events.append('dag.run.running', { run_id: 'woken', dag_name: 'etl' });
    for (const wake of subscribers) wake(null);
    const got = await until('the event', () => dataOf(frames.join('')).find((m) => m.run_id === 'woken'));
    expect(got).toMatchObject({ type: 'dag.run.running' });
    stop();
    expect(subscribers.size).toBe(0);
  });
});

describe('GET /api/v1/events/stream', () => {
  const route = API_ROUTES.find((r) => r.path === '/api/v1/events/stream')!;
  const open = (headers: Record<string, string>, query = '') => {
    const stop = new AbortController();
    const req = new Request(`http://127.0.0.1:8080/api/v1/events/stream${query}`, {
      headers,
      signal: stop.signal,
    });
    return { response: route.handlers.GET!(svc, req, {}), stop };
  };

  async function readUntil(res: Response, enough: (text: string) => boolean): Promise<string> {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!enough(text)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    return text;
  }

  it('is an event stream that first sends the events after Last-Event-ID', async () => {
    const first = await svc.events.append('dag.run.queued', { run_id: 'r1' });
    await svc.events.append('dag.run.running', { run_id: 'r1' });
    await svc.events.append('dag.run.succeeded', { run_id: 'r1' });
    const { response, stop } = open({ 'last-event-id': first.id });
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await readUntil(res, (t) => dataOf(t).length >= 2);
    stop.abort();
    expect(text.startsWith('retry: ')).toBe(true);
    expect(dataOf(text).map((m) => m.type)).toEqual(['dag.run.running', 'dag.run.succeeded']);
    expect(text).toContain('id: ');
  });

  it('resumes from ?after= too, and refuses an ID that is not one, naming where it came from', async () => {
    const header = await (await open({ 'last-event-id': '../../etc' }).response).json();
    expect(header.error.message).toMatch(/^Last-Event-ID: /);
    const query = await open({}, '?after=nope').response;
    expect(query.status).toBe(400);
    expect((await query.json()).error.message).toMatch(/^after: /);
  });

  it('ends every open stream when the server closes', async () => {
    const { response } = open({});
    const res = await response;
    const reader = res.body!.getReader();
    await reader.read(); // `retry:` and the greeting
    eventHubOf(svc).closeAll();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    await until('the hub to let the stream go', () => (eventHubOf(svc).clientCount === 0 ? true : undefined));
    expect(res.headers.get('connection')).toBe('close');
  });

  it('is refused to a page of another site', async () => {
    const res = await open({ 'sec-fetch-site': 'cross-site' }).response;
    expect(res.status).toBe(403);
    const origin = await open({ origin: 'https://evil.example', host: '127.0.0.1:8080' }).response;
    expect(origin.status).toBe(403);
  });

  it('needs credentials when auth is configured', async () => {
    const locked = testServices((c) => ({ ...c, auth: { mode: 'token', token: 'secret-token' } }));
    try {
      const req = new Request('http://127.0.0.1:8080/api/v1/events/stream');
      expect((await route.handlers.GET!(locked, req, {})).status).toBe(401);
      const ok = new AbortController();
      const authed = new Request('http://127.0.0.1:8080/api/v1/events/stream', {
        headers: { authorization: 'Bearer secret-token' },
        signal: ok.signal,
      });
      const res = await route.handlers.GET!(locked, authed, {});
      expect(res.status).toBe(200);
      ok.abort();
      await res.body!.cancel();
    } finally {
      locked.cleanup();
    }
  });
});
