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
import { LEASE_RENEW_MS, leaseDecision, parseLease } from './tabLease';

export type StreamState = 'off' | 'connecting' | 'live' | 'down';

const STREAM_URL = '/api/v1/events/stream';
const LOCK_NAME = 'dagu-event-stream';
const CHANNEL_NAME = 'dagu-event-stream';
const LEASE_KEY = 'dagu-event-stream-lease';
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
 * Starts following the stream in this tab; returns the function that stops. The tab holding the stream is
 * elected with a Web Lock, or, where there are none (a page served over plain HTTP to another host is not a
 * secure context), with a lease in localStorage (tabLease.ts).
 */
export function startLiveEvents(client: QueryClient): () => void {
  if (
    typeof window === 'undefined' ||
    typeof EventSource === 'undefined' ||
    typeof BroadcastChannel === 'undefined'
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

  if ('locks' in navigator) {
    // Held until this tab stops (or closes, when the browser releases it and another tab gets it).
    void navigator.locks
      .request(
        LOCK_NAME,
        { signal: stop.signal },
        () =>
          new Promise<void>((release) => {
            const close = lead();
            stop.signal.addEventListener('abort', () => {
              close();
              release();
            });
          }),
      )
      .catch(() => undefined);
  } else {
    electByLease();
  }

  /** Without Web Locks: renew the lease while holding it, claim it when it is stale, and follow otherwise. */
  function electByLease() {
    const tab = Math.random().toString(36).slice(2);
    let close: (() => void) | null = null;
    const read = () => parseLease(localStorage.getItem(LEASE_KEY));
    const write = () => localStorage.setItem(LEASE_KEY, JSON.stringify({ tab, atMs: Date.now() }));
    const step = () => {
      const decision = leaseDecision(read(), tab, Date.now());
      if (decision === 'claim') {
        write();
        // Read back: of two tabs claiming at once, the one whose write came last holds it.
        setTimeout(() => {
          if (!stop.signal.aborted && read()?.tab === tab && close === null) close = lead();
        }, 200);
      } else if (decision === 'hold') {
        write();
        close ??= lead();
      } else if (close !== null) {
        close(); // another tab took over
        close = null;
      }
    };
    step();
    const timer = setInterval(step, LEASE_RENEW_MS);
    const leave = () => {
      if (read()?.tab === tab) localStorage.removeItem(LEASE_KEY);
    };
    window.addEventListener('pagehide', leave);
    stop.signal.addEventListener('abort', () => {
      clearInterval(timer);
      window.removeEventListener('pagehide', leave);
      close?.();
      leave();
    });
  }

  /** Opens and keeps the stream in this tab; returns the function that closes it. */
  function lead(): () => void {
    leading = true;
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
    return () => {
      clearTimeout(retry);
      source?.close();
      leading = false;
    };
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
