// A TCP proxy a test puts between one process and PostgreSQL, to cut that process off while the database
// stays up for everyone else. `blackhole()` is the hard case of a partition: sockets stay open and every byte
// is dropped, so the client sees no error at all, only silence. `reset()` is the easy case: every connection
// is reset at once and new ones are reset as they arrive. `heal()` forwards again, for new connections only.

import { createServer, Socket } from 'node:net';

export type ProxyMode = 'forward' | 'blackhole' | 'reset';

export interface TcpProxy {
  readonly port: number;
  /** Connections the proxy has accepted so far. */
  readonly accepted: number;
  mode(): ProxyMode;
  blackhole(): void;
  reset(): void;
  /**
   * Forwards again. The connections of the cut are closed first: bytes were dropped in the middle of their
   * protocol streams, so neither side could make sense of what followed. Clients connect anew.
   */
  heal(): void;
  /**
   * The local ports of the proxy's connections to the target whose client side comes from one of
   * `clientPorts`: what the target sees as those clients' ports (pg_stat_activity.client_port).
   */
  upstreamPortsOf(clientPorts: readonly number[]): number[];
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let accepted = 0;
  const pairs = new Set<[Socket, Socket]>();

  const server = createServer((client) => {
    accepted++;
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // Bytes are passed on only while forwarding; in a blackhole they are read and thrown away, so neither
    // side sees back-pressure or an error. A side that closes is not told to the other side either.
    client.on('data', (d) => {
      if (mode === 'forward') upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (mode === 'forward') client.write(d);
    });
    const closed = () => {
      if (mode === 'forward') drop();
    };
    client.on('close', closed);
    upstream.on('close', closed);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    upstream.connect(target.port, target.host);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  return {
    port,
    get accepted() {
      return accepted;
    },
    mode: () => mode,
    blackhole() {
      mode = 'blackhole';
    },
    reset() {
      mode = 'reset';
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    heal() {
      if (mode !== 'forward') {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        pairs.clear();
      }
      mode = 'forward';
    },
    upstreamPortsOf(clientPorts) {
      const wanted = new Set(clientPorts);
      return [...pairs]
        .filter(
          ([client, upstream]) => wanted.has(client.remotePort ?? -1) && upstream.localPort !== undefined,
        )
        .map(([, upstream]) => upstream.localPort!);
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
