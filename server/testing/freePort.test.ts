import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './freePort';

const listen = (port: number) =>
  new Promise<() => Promise<void>>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(() => new Promise<void>((done) => srv.close(() => done()))));
  });

describe('freePort', () => {
  it('gives a port below the ephemeral range that a server can then listen on', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      if (low - 10_000 >= 1_000) expect(port).toBeLessThan(low);
      const close = await listen(port);
      await close();
    }
  });

  it('never gives a port a server is listening on', async () => {
    const taken: Array<() => Promise<void>> = [];
    const takenPorts = new Set<number>();
    // Occupy 200 ports it could choose, then ask 200 times: none of the answers may be one of them.
    for (let i = 0; i < 200; i++) {
      const port = await freePort();
      taken.push(await listen(port));
      takenPorts.add(port);
    }
    try {
      for (let i = 0; i < 200; i++) expect(takenPorts.has(await freePort())).toBe(false);
    } finally {
      await Promise.all(taken.map((close) => close()));
    }
  });
});
