'use client';
// The console's one connection to GET /api/v1/events/stream. A browser allows only six connections to a
// server over HTTP/1.1, shared by all its tabs, so one stream per tab would stall the seventh tab: the tabs
// elect one of them (a Web Lock) to hold the EventSource and pass every message on to the others over a
// BroadcastChannel. Each tab makes the matching TanStack Query keys stale; while the stream is healthy the
// views poll only as a safety net (pollInterval), and when it fails they poll as before.

import type { QueryClient } from '@tanstack/react-query';
import {
  mergeKeys,
  parseLiveMessage,
  pollInterval,
  reconnectDelayMs,
  STREAM_SILENCE_MS,
  type LiveMessage,
} from './liveMessages';

export type StreamState = 'off' | 'connecting' | 'live' | 'down';

const STREAM_URL = '/api/v1/events/stream';
const LOCK_NAME = 'dagu-event-stream';
const CHANNEL_NAME = 'dagu-event-stream';
/** Messages arriving within this window refresh each view once. */
const BATCH_MS = 100;

type ChannelMessage =
  { kind: 'message'; message: LiveMessage } | { kind: 'state'; state: StreamState } | { kind: 'hello' };

let state: StreamState = 'off';
const listeners = new Set<() => void>();

/** The stream's state in this tab (for useSyncExternalStore and the polling intervals). */
export function streamState(): StreamState {
  return state;
}

export function subscribeStreamState(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Whether views may poll slowly: the stream delivers changes. */
export function streamHealthy(): boolean {
  return state === 'live';
}

/**
 * Starts following the stream in this tab; returns the function that stops. Without Web Locks (a page served
 * over plain HTTP to another host is not a secure context) the views just keep polling.
 */
export function startLiveEvents(client: QueryClient): () => void {
  if (
    typeof window === 'undefined' ||
    typeof EventSource === 'undefined' ||
    typeof BroadcastChannel === 'undefined' ||
    !('locks' in navigator)
  ) {
    return () => undefined;
  }
  const channel = new BroadcastChannel(CHANNEL_NAME);
  const stop = new AbortController();
  let leading = false;
  let lastHeard = Date.now();
  let pending: LiveMessage[] = [];
  let batchTimer: ReturnType<typeof setTimeout> | undefined;

  const setState = (next: StreamState) => {
    if (next === state) return;
    const wasHealthy = state === 'live';
    state = next;
    // Visible to tests and to whoever inspects the page: whether this tab gets changes from the stream.
    document.documentElement.dataset.eventStream = next;
    for (const l of listeners) l();
    // Falling back to polling: refetch now, which also puts the short intervals back in force.
    if (wasHealthy && next !== 'live') void client.invalidateQueries();
  };

  const apply = (message: LiveMessage) => {
    lastHeard = Date.now();
    if (message.type === 'heartbeat') return;
    pending.push(message);
    batchTimer ??= setTimeout(() => {
      batchTimer = undefined;
      const keys = mergeKeys(pending);
      pending = [];
      if (keys === 'all') void client.invalidateQueries();
      else for (const key of keys) void client.invalidateQueries({ queryKey: key }, { cancelRefetch: false });
    }, BATCH_MS);
  };

  channel.onmessage = (e: MessageEvent<ChannelMessage>) => {
    const m = e.data;
    if (m.kind === 'message') apply(m.message);
    else if (m.kind === 'state' && !leading) {
      lastHeard = Date.now();
      setState(m.state);
    } else if (m.kind === 'hello' && leading)
      channel.postMessage({ kind: 'state', state } satisfies ChannelMessage);
  };
  setState('connecting');
  channel.postMessage({ kind: 'hello' } satisfies ChannelMessage);

  // A follower whose leader went quiet (its tab frozen, the stream stalled) polls again until it hears more.
  const watchdog = setInterval(() => {
    if (state === 'live' && Date.now() - lastHeard > STREAM_SILENCE_MS) setState('down');
  }, 5000);

  void navigator.locks.request(LOCK_NAME, { signal: stop.signal }, () => lead()).catch(() => undefined);

  /** Holds the lock (and so the stream) until this tab stops. */
  function lead(): Promise<void> {
    leading = true;
    return new Promise<void>((release) => {
      let source: EventSource | null = null;
      let failures = 0;
      let retry: ReturnType<typeof setTimeout> | undefined;
      const announce = (s: StreamState) => {
        setState(s);
        channel.postMessage({ kind: 'state', state: s } satisfies ChannelMessage);
      };
      const connect = () => {
        source = new EventSource(STREAM_URL);
        source.onopen = () => {
          failures = 0;
          announce('live');
        };
        source.onmessage = (e: MessageEvent<string>) => {
          const message = parseLiveMessage(e.data);
          if (!message) return;
          if (state !== 'live') announce('live');
          apply(message);
          channel.postMessage({ kind: 'message', message } satisfies ChannelMessage);
        };
        source.onerror = () => {
          announce('down');
          // CONNECTING: the browser retries by itself (after the server's `retry:`); CLOSED (an HTTP error
          // such as 401): it gave up, so try again later with a growing pause.
          if (source?.readyState === EventSource.CLOSED) {
            source = null;
            failures += 1;
            retry = setTimeout(connect, reconnectDelayMs(failures));
          }
        };
      };
      connect();
      stop.signal.addEventListener('abort', () => {
        clearTimeout(retry);
        source?.close();
        leading = false;
        release();
      });
    });
  }

  return () => {
    stop.abort();
    clearInterval(watchdog);
    clearTimeout(batchTimer);
    channel.close();
    setState('off');
  };
}

/**
 * A view's refetch interval: `baseMs` while the stream is not healthy, the slow safety-net poll (or
 * `healthyMs`) while it is.
 */
export function livePoll(baseMs: number, healthyMs?: number): () => number {
  return () => pollInterval(baseMs, streamHealthy(), healthyMs);
}
