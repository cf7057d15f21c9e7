// The wake-ups of one process on PostgreSQL: one listening connection (WakeupListener), opened on the first
// subscription, fanning each notification out to the subscribers of its topic. After every (re)connection
// all subscribers are called, since what was sent meanwhile is lost and they must look for themselves.

import type pg from 'pg';
import type { Logger, Timers } from '../../core/ports';
import type { WakeupTopic, Wakeups } from '../controlPlane';
import { WakeupListener, type WakeupChannel } from './pgWakeups';

/** The channel of each topic (the stores NOTIFY them in the writing statement). */
export const TOPIC_CHANNELS: Record<WakeupTopic, WakeupChannel> = {
  queue: 'dagu_queue',
  dispatch: 'dagu_dispatch',
  events: 'dagu_events',
  dags: 'dagu_dags',
  runs: 'dagu_runs',
};

export class PgWakeupHub implements Wakeups {
  private readonly subscribers = new Map<WakeupTopic, Set<(about: string | null) => void>>();
  private listener: WakeupListener | null = null;

  constructor(private readonly o: { connection: pg.ClientConfig; timers: Timers; logger: Logger }) {}

  subscribe(topic: WakeupTopic, fn: (about: string | null) => void): () => void {
    let set = this.subscribers.get(topic);
    if (!set) this.subscribers.set(topic, (set = new Set()));
    set.add(fn);
    this.listen(topic);
    return () => set.delete(fn);
  }

  /** The channels this process listens on now, as the server says (for checks and diagnostics). */
  listening(): Promise<string[]> {
    return this.listener?.listening() ?? Promise.resolve([]);
  }

  async close(): Promise<void> {
    const l = this.listener;
    this.listener = null;
    await l?.stop();
  }

  /** Listens on the topic's channel (only the topics subscribed to: see WakeupListener). */
  private listen(topic: WakeupTopic): void {
    if (this.listener) {
      this.listener.add(TOPIC_CHANNELS[topic], () => this.call(this.subscribers.get(topic), null));
      return;
    }
    const byChannel = new Map(
      (Object.entries(TOPIC_CHANNELS) as Array<[WakeupTopic, WakeupChannel]>).map(([t, c]) => [c, t]),
    );
    this.listener = new WakeupListener({
      connection: this.o.connection,
      channels: [TOPIC_CHANNELS[topic]],
      timers: this.o.timers,
      logger: this.o.logger,
      onNotify: (channel, payload) => {
        const topic = byChannel.get(channel);
        if (topic) this.call(this.subscribers.get(topic), payload === '' ? null : payload);
      },
      onResync: () => {
        for (const set of this.subscribers.values()) this.call(set, null);
      },
    });
    this.listener.start();
  }

  private call(set: Set<(about: string | null) => void> | undefined, about: string | null): void {
    for (const fn of [...(set ?? [])]) {
      try {
        fn(about);
      } catch {
        // A subscriber's failure is its own; the others are still told.
      }
    }
  }
}
