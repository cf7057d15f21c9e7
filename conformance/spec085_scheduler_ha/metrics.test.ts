// The web server's /metrics reports dagu_scheduler_instances{status} from the instance registry, on both
// storage backends.

import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, useBackend } from '../../tests/integration/backends';
import { eventually, freePort, startService } from '../../tests/integration/harness';
import { Cluster } from './cluster';

let cluster: Cluster;
afterEach(async () => {
  await cluster?.stopAll();
});

function gauge(text: string, status: string): number | null {
  const m = new RegExp(`^dagu_scheduler_instances\\{status="${status}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

describe.each(BACKENDS)('on the %s backend', (name) => {
  const backend = useBackend(name);

  it('the server counts one active and one standby scheduler', async () => {
    cluster = new Cluster(backend);
    await cluster.start('a');
    await cluster.active();
    await cluster.start('b');
    const port = await freePort();
    const server = startService(['server', '--port', String(port)], cluster.home.env);
    cluster.instances.push({
      name: 'server',
      port,
      service: server,
      health: async () => ({ code: 0, body: null }),
    });
    const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const text = await eventually(async () => {
      const t = await metrics();
      return gauge(t, 'active') === 1 && gauge(t, 'standby') === 1 ? t : null;
    }, 20_000);
    expect(text).toMatch(/# TYPE dagu_scheduler_instances gauge/);
  });
});
