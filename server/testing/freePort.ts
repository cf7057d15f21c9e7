// A free TCP port on 127.0.0.1 for a server a test starts.
//
// Asking the kernel for port 0 hands out a port from the ephemeral range, the same range every outgoing
// connection's local port comes from. Between the probe and the server's own bind, a client connection of any
// process (a PostgreSQL pool, a fetch) can take that port, and the server then fails with EADDRINUSE. Ports
// below the ephemeral range are never handed to outgoing connections, so the probe picks one of those at random
// and checks it is free; only when the range leaves no room below it does it fall back to port 0.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** How many ports below the ephemeral range to choose from. */
const SPAN = 12_000;
/** The lowest port ever chosen: clear of the well-known and commonly registered ones. */
const FLOOR = 10_000;

function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const n = Number(low);
    if (Number.isInteger(n) && n > 0) return n;
  } catch {
    /* not Linux, or no /proc: use Linux's default */
  }
  return 32_768;
}

/** Listens on `port` (0: any) on 127.0.0.1 and closes again; the port it got, or null when it was taken. */
function probe(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(null);
      else reject(err);
    });
    srv.listen(port, '127.0.0.1', () => {
      const address = srv.address();
      const got = typeof address === 'object' && address ? address.port : null;
      srv.close(() => resolve(got));
    });
  });
}

export async function freePort(): Promise<number> {
  const top = ephemeralLow();
  const bottom = Math.max(FLOOR, top - SPAN);
  if (top - bottom >= 1_000) {
    for (let i = 0; i < 50; i++) {
      const got = await probe(bottom + Math.floor(Math.random() * (top - bottom)));
      if (got !== null) return got;
    }
  }
  const got = await probe(0);
  if (got === null) throw new Error('no free TCP port on 127.0.0.1');
  return got;
}
