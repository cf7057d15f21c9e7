// Wake-ups across hosts on PostgreSQL: LISTEN on one dedicated connection (never a pooled one: a pooled
// connection goes back to the pool and its LISTEN with it), NOTIFY from the writer's own transaction so
// nobody is woken before the change is visible. A notification is only a hint: it is lost while the
// listener is disconnected, so after every (re)connection `onResync` runs, and the caller polls as it would
// without notifications. A heartbeat query with its own timer finds a stalled connection (TCP keepalive
// does not), which is then thrown away and replaced, with backoff and jitter between attempts.

import type { ClientBase } from 'pg';
import type pg from 'pg';
import type { Logger, TimerHandle, Timers } from '../../core/ports';
import { PgClient } from './connect';

/** Channel names are identifiers of at most 63 bytes; these are the product's. */
export const WAKEUP_CHANNELS = [
  'dagu_runs',
  'dagu_queue',
  'dagu_dispatch',
  'dagu_cancel',
  'dagu_events',
  'dagu_dags',
] as const;
export type WakeupChannel = (typeof WAKEUP_CHANNELS)[number];

/** Largest payload PostgreSQL delivers (8000 bytes is refused). Send IDs and read rows, never documents. */
export const MAX_NOTIFY_PAYLOAD_BYTES = 7999;

/** Queues a wake-up in the caller's transaction: delivered at COMMIT, never after a ROLLBACK. */
export async function notify(c: ClientBase, channel: WakeupChannel, payload = ''): Promise<void> {
  if (Buffer.byteLength(payload) > MAX_NOTIFY_PAYLOAD_BYTES) {
    throw new RangeError(
      `a ${channel} notification payload must be at most ${MAX_NOTIFY_PAYLOAD_BYTES} bytes`,
    );
  }
  await c.query('select pg_notify($1, $2)', [channel, payload]);
}

export interface WakeupListenerOptions {
  /** Connection settings of the dedicated client (a connection string or pg's client config). */
  connection: string | pg.ClientConfig;
  /** The channels to listen on from the start; `add` adds more. */
  channels: readonly WakeupChannel[];
  onNotify: (channel: WakeupChannel, payload: string) => void;
  /** After every (re)connection, once LISTEN is in place: what was sent meanwhile is gone, so poll. */
  onResync: () => void;
  timers: Timers;
  logger: Logger;
  /** How often the connection is checked, and how long the check may take. Defaults 10 s and 5 s. */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  /** Backoff between connection attempts: from the first to the most, doubled each time, with jitter. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  random?: () => number;
}

export class WakeupListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private connected = false;
  private attempt = 0;
  private timer: TimerHandle | null = null;
  private readonly log: Logger;
  /** Bumped per connection, so events of a discarded client are ignored. */
  private generation = 0;
  /**
   * The channels listened on. Only these: every NOTIFY wakes each connection that listens on its channel, so
   * a process that listened on all of them would be woken by every status write of the cluster for nothing.
   */
  private readonly channels: Set<WakeupChannel>;

  constructor(private readonly o: WakeupListenerOptions) {
    this.log = o.logger.child({ component: 'pg-wakeups' });
    this.channels = new Set(o.channels);
  }

  /**
   * Listens on one more channel. What was sent on it before LISTEN took effect is lost, so `onListening` runs
   * once it has (the caller then looks for itself); while not connected, the next connection listens on it
   * and calls `onResync` as it always does.
   */
  add(channel: WakeupChannel, onListening: () => void): void {
    if (this.channels.has(channel)) return;
    this.channels.add(channel);
    const client = this.client;
    if (!client || !this.connected) return;
    const gen = this.generation;
    client.query(`listen ${channel}`).then(
      () => {
        if (gen === this.generation) onListening();
      },
      (err: Error) => this.drop(gen, `could not listen: ${err.message}`),
    );
  }

  /** The channels the server has this connection listening on (`pg_listening_channels()`); [] when not connected. */
  async listening(): Promise<string[]> {
    const client = this.client;
    if (!client || !this.connected) return [];
    const r = await client.query<{ c: string }>('select pg_listening_channels() as c');
    return r.rows.map((row) => row.c).sort();
  }

  /** Connects in the background; notifications and resyncs flow once connected. */
  start(): void {
    this.connect();
  }

  /** Whether LISTEN is in place now (while not, the caller's polling is all there is). */
  isListening(): boolean {
    return this.connected;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    const c = this.client;
    this.client = null;
    this.connected = false;
    await c?.end().catch(() => undefined);
  }

  private connect(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    const client = new PgClient(
      typeof this.o.connection === 'string'
        ? { connectionString: this.o.connection, keepAlive: true }
        : { keepAlive: true, ...this.o.connection },
    );
    this.client = client;
    client.on('error', (err) => this.drop(gen, `connection error: ${err.message}`));
    client.on('end', () => this.drop(gen, 'connection ended'));
    client.on('notification', (n) => {
      if (gen !== this.generation) return;
      if (this.channels.has(n.channel as WakeupChannel)) {
        this.o.onNotify(n.channel as WakeupChannel, n.payload ?? '');
      }
    });
    void (async () => {
      await client.connect();
      // The set is read as it is then: a channel added meanwhile is listened on here too. Connected from the
      // same turn as the loop's end, so that one added after it is listened on by `add`.
      for (const ch of this.channels) await client.query(`listen ${ch}`);
      if (gen === this.generation && !this.stopped) this.connected = true;
    })().then(
      () => {
        if (gen !== this.generation || this.stopped) return;
        this.connected = true;
        if (this.attempt > 0) this.log.info('Listening for wake-ups again', { attempts: this.attempt });
        this.attempt = 0;
        this.o.onResync();
        this.scheduleHeartbeat(gen);
      },
      (err: Error) => this.drop(gen, `could not listen: ${err.message}`),
    );
  }

  private scheduleHeartbeat(gen: number): void {
    this.clearTimer();
    this.timer = this.o.timers.setTimeout(() => void this.heartbeat(gen), this.o.heartbeatMs ?? 10_000);
  }

  /** A query with its own deadline: a stalled server or network answers nothing, and no socket error comes. */
  private async heartbeat(gen: number): Promise<void> {
    const client = this.client;
    if (gen !== this.generation || !client) return;
    let timedOut = false;
    const deadline = this.o.timers.setTimeout(() => {
      timedOut = true;
      this.drop(gen, 'the connection did not answer a heartbeat in time');
    }, this.o.heartbeatTimeoutMs ?? 5000);
    try {
      await client.query('select 1');
      if (!timedOut) this.scheduleHeartbeat(gen);
    } catch (err) {
      this.drop(gen, `heartbeat failed: ${(err as Error).message}`);
    } finally {
      this.o.timers.clearTimeout(deadline);
    }
  }

  /** Throws the connection away and tries again after a backoff; the caller polls meanwhile. */
  private drop(gen: number, why: string): void {
    if (gen !== this.generation) return;
    this.generation++;
    this.connected = false;
    const c = this.client;
    this.client = null;
    // end() waits for a reply a stalled server never sends: the socket is destroyed instead.
    (c as unknown as { connection?: { stream?: { destroy(): void } } } | null)?.connection?.stream?.destroy();
    void c?.end().catch(() => undefined);
    if (this.stopped) return;
    const min = this.o.minBackoffMs ?? 150;
    const max = this.o.maxBackoffMs ?? 60_000;
    const base = Math.min(max, min * 2 ** Math.min(this.attempt, 20));
    const delay = Math.round(base / 2 + (this.o.random ?? Math.random)() * (base / 2));
    this.attempt++;
    if (this.attempt === 1 || this.attempt % 10 === 0) {
      this.log.warn('Not listening for wake-ups; polling until reconnected', { why, retry_in_ms: delay });
    }
    this.clearTimer();
    this.timer = this.o.timers.setTimeout(() => this.connect(), delay);
  }

  private clearTimer(): void {
    if (this.timer) this.o.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
