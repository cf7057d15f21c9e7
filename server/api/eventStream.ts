// GET /api/v1/events/stream: the event log as server-sent events, so the console refreshes a view when
// something happened instead of polling it. One hub per server process reads the log forward (one tail,
// however many tabs are open) and fans each event out to every connected client; it also watches the
// scheduler instances and the workers, whose changes (a takeover, a worker lost) are not all events.

import { EVENT_ID_PATTERN, MAX_EVENT_LIMIT } from '../store/eventRecord';
import { isLive } from '../store/instanceRegistry';
import type { EventRecord } from '../store/types';
import { BadRequestError } from './errors';
import type { EventFeed } from './eventFeed';
import { failoverSettings } from './overview';
import type { Services } from './services';
import { workerState } from './workers';

/** How often the hub reads the log's new lines while a client is connected. */
export const STREAM_POLL_MS = 250;
/** How often the hub looks at the scheduler instances (a takeover shows within 2 s). */
export const SCHEDULER_POLL_MS = 500;
/** How often the hub looks at the workers' health. */
export const WORKERS_POLL_MS = 1000;
/** A `heartbeat` message this often keeps proxies from closing an idle stream and tells clients it lives. */
export const HEARTBEAT_MS = 15_000;
/** What a browser waits before reconnecting after the stream broke (the `retry:` field). */
export const RECONNECT_MS = 2000;

/** What one SSE message carries: the event's ID and type, and what a client needs to pick the views. */
export interface StreamMessage {
  id?: string;
  /** An event type (`dag.run.running`, `scheduler.lock.acquired`, ...), or `scheduler`, `workers`, `reset`. */
  type: string;
  run_id?: string;
  dag_name?: string;
  status?: string;
}

/** One SSE frame; `id:` only for events of the log, so Last-Event-ID always names a real event. */
export function formatSseMessage(message: StreamMessage): string {
  const idLine = message.id ? `id: ${message.id}\n` : '';
  return `${idLine}data: ${JSON.stringify(message)}\n\n`;
}

export function toStreamMessage(record: EventRecord): StreamMessage {
  const data = record.data as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    id: record.id,
    type: record.type,
    run_id: text(data.run_id),
    dag_name: text(data.dag_name) ?? text(data.dag),
    status: text(data.status),
  };
}

type Client = (frame: string) => void;
/** Ends a client's stream (the server is closing). */
type Ender = () => void;

/** Timers the hub runs on; unref'd so that open streams never keep a stopping server alive. */
function every(ms: number, fn: () => Promise<void> | void): { stop: () => void; wake: () => void } {
  let stopped = false;
  let running = false;
  let wokenWhileRunning = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loop = async () => {
    running = true;
    try {
      await fn();
    } catch {
      // A failed read is tried again on the next pass; the log says nothing new meanwhile.
    }
    running = false;
    if (stopped) return;
    if (wokenWhileRunning) {
      wokenWhileRunning = false;
      void loop();
    } else timer = setTimeout(() => void loop(), ms).unref();
  };
  timer = setTimeout(() => void loop(), ms).unref();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
    // A wake-up from another host (an event appended): read now rather than at the next pass.
    wake: () => {
      if (stopped) return;
      if (running) {
        wokenWhileRunning = true;
        return;
      }
      clearTimeout(timer);
      void loop();
    },
  };
}

/** The fan-out: one reader of the log and of the instance and worker records for all clients. */
export class EventHub {
  private readonly clients = new Map<Client, Ender>();
  private stops: Array<() => void> = [];
  private schedulerKey: string | null = null;
  private workersKey: string | null = null;
  /** Bytes already in the log when the hub (re)starts are skipped: a client asks for those by its ID. */
  private primed: Promise<void> | null = null;

  /** `streamPollMs`: how often the log is read when nothing wakes the hub (tests lengthen it). */
  constructor(
    private readonly svc: Services,
    private readonly feed: EventFeed = svc.eventFeed(),
    private readonly streamPollMs = STREAM_POLL_MS,
  ) {}

  get clientCount(): number {
    return this.clients.size;
  }

  /** Adds a client; it gets every event read from now on. Returns the function that removes it. */
  async subscribe(client: Client, end: Ender = () => undefined): Promise<() => void> {
    this.clients.set(client, end);
    if (this.clients.size === 1) this.start();
    await this.primed;
    return () => {
      if (!this.clients.delete(client)) return;
      if (this.clients.size === 0) this.stop();
    };
  }

  private start() {
    this.primed ??= this.feed
      .read(() => false)
      .then(
        () => undefined,
        () => undefined,
      );
    const primed = this.primed;
    const events = every(this.streamPollMs, async () => {
      await primed;
      for (const record of await this.feed.read(() => true)) this.send(toStreamMessage(record));
    });
    const unsubscribe = this.svc.wakeups?.subscribe('events', events.wake) ?? (() => undefined);
    this.stops = [
      events.stop,
      unsubscribe,
      every(SCHEDULER_POLL_MS, () => this.checkSchedulers()).stop,
      every(WORKERS_POLL_MS, () => this.checkWorkers()).stop,
      every(HEARTBEAT_MS, () => this.send({ type: 'heartbeat' })).stop,
    ];
  }

  /** Ends every stream, so a closing server need not wait for its clients to leave. */
  closeAll(): void {
    for (const end of [...this.clients.values()]) end();
  }

  private stop() {
    for (const stop of this.stops) stop();
    this.stops = [];
    // The feed keeps its place; the next start skips what was appended while nobody listened.
    this.primed = this.feed
      .read(() => false)
      .then(
        () => undefined,
        () => undefined,
      );
    this.schedulerKey = null;
    this.workersKey = null;
  }

  private send(message: StreamMessage) {
    this.broadcast(formatSseMessage(message));
  }

  private broadcast(frame: string) {
    for (const client of this.clients.keys()) client(frame);
  }

  /** A `scheduler` message whenever the instances' roles or liveness change (a takeover, a standby gone). */
  private async checkSchedulers() {
    const records = await this.svc.instances.list();
    const nowMs = this.svc.clock.nowMs();
    const bound = failoverSettings(this.svc).takeover_bound_ms;
    const key = records
      .map((r) => `${r.id}:${r.role}:${isLive(r, nowMs, bound) ? 'live' : 'gone'}`)
      .sort()
      .join(',');
    if (this.schedulerKey !== null && key !== this.schedulerKey) this.send({ type: 'scheduler' });
    this.schedulerKey = key;
  }

  /** A `workers` message whenever a worker comes, goes, or changes health or load. */
  private async checkWorkers() {
    const workers = await this.svc.workers.list();
    const nowMs = this.svc.clock.nowMs();
    const staleMs = this.svc.config.coordinator.worker_stale_threshold_ms;
    const key = workers
      .map((w) => {
        const runs = w.running.map((r) => r.run_id).join('+');
        return `${w.worker_id}:${workerState(w.last_heartbeat_ms, nowMs, staleMs)}:${runs}`;
      })
      .sort()
      .join(',');
    if (this.workersKey !== null && key !== this.workersKey) this.send({ type: 'workers' });
    this.workersKey = key;
  }
}

const hubs = new WeakMap<Services, EventHub>();

/** The process's hub for these services (made on the first stream; the services live as long as the server). */
export function eventHubOf(svc: Services): EventHub {
  let hub = hubs.get(svc);
  if (!hub) {
    hub = new EventHub(svc);
    hubs.set(svc, hub);
  }
  return hub;
}

/** The Last-Event-ID header (a reconnecting browser sends it) or `?after=`; checked like `after` of /events. */
export function parseResumeId(req: Request): string | undefined {
  const header = req.headers.get('last-event-id');
  const fromQuery = new URL(req.url).searchParams.get('after');
  const value = header ?? fromQuery ?? undefined;
  if (value === undefined || value === '') return undefined;
  if (!EVENT_ID_PATTERN.test(value)) {
    const field = header !== null ? 'Last-Event-ID' : 'after';
    throw new BadRequestError(`${field}: ${JSON.stringify(value.slice(0, 80))} must be the id of an event`);
  }
  return value;
}

/**
 * The stream: first the events after `resumeId` (a client that reconnects misses nothing; if more than a
 * page were missed it gets `reset`, refreshing everything), then every new event as the hub reads it.
 */
export async function openEventStream(
  svc: Services,
  hub: EventHub,
  resumeId: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | null = null;
  const body = new ReadableStream<Uint8Array>({
    start: async (controller) => {
      const pending: string[] = [];
      let lastId = resumeId;
      let replaying = true;
      const write = (frame: string) => {
        try {
          controller.enqueue(encoder.encode(frame));
        } catch {
          // Closed: the client left; the abort handler unsubscribes.
        }
      };
      const live: Client = (frame) => {
        if (replaying) pending.push(frame);
        else write(frame);
      };
      write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
      // Subscribe first, then replay: an event appended in between is in both, and sent once (by its ID).
      let ended = false;
      const end = () => {
        ended = true;
        unsubscribe?.();
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      unsubscribe = await hub.subscribe(live, end);
      // Ended (or the client left) while the hub was starting: leave again.
      if (ended || signal.aborted) {
        end();
        return;
      }
      signal.addEventListener('abort', end);
      if (resumeId !== undefined) {
        const missed = await svc.events.list({ afterId: resumeId, limit: MAX_EVENT_LIMIT });
        if (missed.length === MAX_EVENT_LIMIT) write(formatSseMessage({ type: 'reset' }));
        for (const record of missed) write(formatSseMessage(toStreamMessage(record)));
        lastId = missed.at(-1)?.id ?? lastId;
      }
      replaying = false;
      for (const frame of pending) {
        const id = /^id: (\S+)\n/.exec(frame)?.[1];
        if (id !== undefined && lastId !== undefined && id <= lastId) continue;
        write(frame);
      }
    },
    cancel: () => {
      unsubscribe?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      // The connection ends with the stream: a closing server is not kept waiting by an idle keep-alive.
      Connection: 'close',
    },
  });
}
