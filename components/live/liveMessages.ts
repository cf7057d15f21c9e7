// What the console does with a message of GET /api/v1/events/stream: which cached views it makes stale, how
// often views still poll while the stream is healthy, and how long to wait before reconnecting. Pure, so it
// is tested without a browser; liveEvents.ts wires it to EventSource.

import { queryKeys } from '../queryKeys';

/** One message of the stream (server/api/eventStream.ts's StreamMessage). */
export interface LiveMessage {
  id?: string;
  type: string;
  run_id?: string;
  dag_name?: string;
  status?: string;
}

/** Views poll this rarely while the stream is healthy: a safety net, not the way they learn of changes. */
export const STREAM_HEALTHY_POLL_MS = 30_000;
/** Without a message (events or the server's heartbeat) for this long, the stream counts as down. */
export const STREAM_SILENCE_MS = 40_000;
const MAX_BACKOFF_MS = 30_000;

/** Parses the data of one message; null for anything that is not a message of ours. */
export function parseLiveMessage(data: unknown): LiveMessage | null {
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const type = (value as { type?: unknown }).type;
    return typeof type === 'string' ? (value as LiveMessage) : null;
  } catch {
    return null;
  }
}

/** `'all'`: refresh every view (the client missed too much); otherwise the keys (prefixes) to mark stale. */
export function keysToRefresh(message: LiveMessage): 'all' | ReadonlyArray<readonly unknown[]> {
  const { type } = message;
  if (type === 'reset') return 'all';
  if (type === 'heartbeat') return [];
  if (type === 'scheduler' || type.startsWith('scheduler.')) return [queryKeys.overview()];
  if (type === 'workers' || type.startsWith('worker.')) return [queryKeys.workers(), queryKeys.overview()];
  if (type.startsWith('dag.run.') || type.startsWith('run:')) {
    const keys: Array<readonly unknown[]> = [
      queryKeys.runLists(),
      queryKeys.queues(),
      queryKeys.overview(),
      // The DAG list shows each DAG's last run; its page its recent runs (both under the `dags` prefix).
      queryKeys.dags(),
    ];
    if (message.run_id) keys.push(queryKeys.run(message.run_id));
    return keys;
  }
  // Another kind of event (a DAG changed, suspended, ...): the DAG views and the overview's counts.
  return [queryKeys.dags(), queryKeys.overview()];
}

/** The keys of several messages, without repeats (a burst of events refreshes each view once). */
export function mergeKeys(messages: readonly LiveMessage[]): 'all' | Array<readonly unknown[]> {
  const out = new Map<string, readonly unknown[]>();
  for (const m of messages) {
    const keys = keysToRefresh(m);
    if (keys === 'all') return 'all';
    for (const key of keys) out.set(JSON.stringify(key), key);
  }
  return [...out.values()];
}

/** How often a view with `baseMs` polls: stretched while the stream is healthy, as before when it is not. */
export function pollInterval(
  baseMs: number,
  streamHealthy: boolean,
  healthyMs = STREAM_HEALTHY_POLL_MS,
): number {
  return streamHealthy ? Math.max(baseMs, healthyMs) : baseMs;
}

/** Wait before the n-th reconnect after the stream closed (1 s, 2 s, 4 s ... up to 30 s). */
export function reconnectDelayMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, failures - 1));
}
