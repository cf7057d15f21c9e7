// The chart's pods as real processes: each rendered container's command started as `bin/dagu` with its
// rendered environment (moved to a temp home and free ports), answering its own probes.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dagu, eventually, freePort, startService, tempHome, type Service, type TempHome } from '../harness';
import { configYaml, containerOf, render, resolvedEnv, type Manifest, type Probe } from './manifests';

describe("the chart's pods on real processes", () => {
  let h: TempHome;
  const services: Service[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    h.cleanup();
  });

  /** A rendered container's environment, moved to this machine's temp home (and `overrides`). */
  function podEnv(ms: Manifest[], component: string, overrides: Record<string, string>): NodeJS.ProcessEnv {
    const configFile = path.join(h.home, 'chart-config.yaml');
    writeFileSync(configFile, configYaml(ms));
    // This machine's variables minus any DAGU_* one, so the dagu process sees the pod's settings and no others.
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('DAGU_')) delete env[name];
    return Object.assign(env, resolvedEnv(ms, containerOf(ms, component)), {
      DAGU_HOME: h.home,
      DAGU_CONFIG: configFile,
      DAGU_LOG_FORMAT: 'json',
      ...overrides,
    });
  }

  /** Starts a rendered container's command with its rendered environment. */
  function startPod(ms: Manifest[], component: string, overrides: Record<string, string>): Service {
    const s = startService(containerOf(ms, component).args!, podEnv(ms, component, overrides));
    services.push(s);
    return s;
  }

  const status = (url: string, token?: string) =>
    fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} }).then(
      (r) => r.status,
      () => 0,
    );

  it('the active scheduler is Ready on its readiness path and the standby is not; both are live', async () => {
    h = tempHome();
    const ms = render();
    const c = containerOf(ms, 'scheduler');
    const ports = [await freePort(), await freePort()];
    for (const port of ports)
      startPod(ms, 'scheduler', {
        DAGU_HOST: '127.0.0.1',
        DAGU_SCHEDULER_PORT: String(port),
        DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s',
        DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms',
      });
    const probe = (port: number, p: Probe | undefined) =>
      status(`http://127.0.0.1:${port}${p!.httpGet!.path}`);
    const ready = await eventually(async () => {
      const codes = await Promise.all(ports.map((p) => probe(p, c.readinessProbe)));
      return [...codes].sort().join(',') === '200,503' && codes;
    }, 30_000);
    expect(ready.filter((x) => x === 200)).toHaveLength(1);
    for (const port of ports) expect(await probe(port, c.livenessProbe)).toBe(200);
  });

  it('the worker registers under its rendered labels and token, and runs a DAG without a selector', async () => {
    h = tempHome();
    const ms = render(['--set', 'worker.labels.zone=b,worker.labels.gpu=true']);
    const port = await freePort();
    const coordinator = startPod(ms, 'coordinator', {
      DAGU_COORDINATOR_HOST: '127.0.0.1',
      DAGU_COORDINATOR_PORT: String(port),
    });
    await coordinator.waitFor(/Coordinator listening/, 30_000);
    const liveness = containerOf(ms, 'coordinator').livenessProbe!.httpGet!;
    expect(await status(`${liveness.scheme!.toLowerCase()}://127.0.0.1:${port}${liveness.path}`)).toBe(200);

    startPod(ms, 'worker', {
      DAGU_COORDINATOR_URL: `http://127.0.0.1:${port}`,
      DAGU_WORKER_WORK_DIR: path.join(h.home, 'worker-local'),
    });
    const token = resolvedEnv(ms, containerOf(ms, 'coordinator')).DAGU_COORDINATOR_TOKEN;
    expect(await status(`http://127.0.0.1:${port}/api/v1/workers`)).toBe(401);
    const worker = await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/workers`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const body = (await r.json()) as {
        workers: Array<{ labels: object; max_active_runs: number; health: string }>;
      };
      return body.workers.find((w) => w.health === 'healthy');
    }, 30_000);
    expect(worker.labels).toEqual({ gpu: 'true', zone: 'b' });
    expect(worker.max_active_runs).toBe(4);

    // executionMode distributed: a DAG without a selector, started from a scheduler pod's environment,
    // runs on that worker.
    h.writeDag('hello', 'steps:\n  - name: s\n    command: echo hello from the worker\n');
    const r = await dagu(['start', 'hello'], podEnv(ms, 'scheduler', {}), 45_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('to a worker matching {}');
  });

  it('the server answers its probes without a token and keeps /metrics behind the rendered token', async () => {
    h = tempHome();
    const ms = render();
    const port = await freePort();
    startPod(ms, 'server', { DAGU_HOST: '127.0.0.1', DAGU_PORT: String(port) });
    const c = containerOf(ms, 'server');
    await eventually(
      async () => (await status(`http://127.0.0.1:${port}${c.startupProbe!.httpGet!.path}`)) === 200,
      45_000,
    );
    expect(await status(`http://127.0.0.1:${port}${c.livenessProbe!.httpGet!.path}`)).toBe(200);
    expect(await status(`http://127.0.0.1:${port}/metrics`)).toBe(401);
    const token = resolvedEnv(ms, c).DAGU_AUTH_TOKEN;
    expect(await status(`http://127.0.0.1:${port}/metrics`, token)).toBe(200);
  });
});
