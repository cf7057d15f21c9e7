import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import { systemClock } from '../core/clock';
import { RecordingLogger } from '../testing/recordingLogger';
import { coordinatorAvailability } from '../core/coordinatorPresence';
import { FileCoordinatorRegistry } from '../store/fileCoordinatorRegistry';
import { FileEventLog } from '../store/fileEventLog';
import { composeCoordinator } from '../cli/composeCoordinator';
import { fileControlPlane } from '../store/fileControlPlane';
import type { CoordinatorService } from './coordinatorService';
import { COORDINATOR_PATHS } from './protocol';

let home: string;
let config: Config;
const running: CoordinatorService[] = [];

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'dagu-coord-svc-'));
  const loaded = loadConfig({ home, env: { NODE_ENV: 'test', DAGU_COORDINATOR_TOKEN: 'tok' } });
  config = { ...loaded, coordinator: { ...loaded.coordinator, host: '127.0.0.1', port: 0 } };
  await mkdir(config.paths.dags_dir, { recursive: true });
  await writeFile(
    path.join(config.paths.dags_dir, 'child.yaml'),
    'worker_selector:\n  zone: b\nsteps:\n  - name: work\n    command: echo hi\n',
  );
});

afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  await rm(home, { recursive: true, force: true });
});

async function start(logger = new RecordingLogger()): Promise<CoordinatorService> {
  const svc = composeCoordinator(config, logger, fileControlPlane(config, logger, systemClock));
  await svc.start();
  running.push(svc);
  return svc;
}

async function post(svc: CoordinatorService, urlPath: string, body: unknown) {
  const res = await fetch(svc.url + urlPath, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer tok' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

describe('CoordinatorService', () => {
  it('logs where it listens, with TLS and auth', async () => {
    const logger = new RecordingLogger();
    const svc = await start(logger);

    const [line] = logger.find('Coordinator listening');
    expect(line.fields).toMatchObject({ url: svc.url, tls: false, auth: 'token', component: 'coordinator' });
  });

  it('warns loudly when it listens beyond this host without a token, and not on loopback', async () => {
    config = { ...config, coordinator: { ...config.coordinator, token: null, host: '0.0.0.0' } };
    const open = new RecordingLogger();
    await start(open);
    expect(open.find('without a token')).toHaveLength(1);
    expect(open.find('without a token')[0].fields).toMatchObject({ host: '0.0.0.0' });

    config = { ...config, coordinator: { ...config.coordinator, host: '127.0.0.1' } };
    const local = new RecordingLogger();
    await start(local);
    expect(local.find('without a token')).toHaveLength(0);
  });

  it('tells every process of the data directory it is alive while it serves, and gone once stopped', async () => {
    const registry = new FileCoordinatorRegistry({ dataDir: config.paths.data_dir });
    const alive = async () => coordinatorAvailability(await registry.list(), Date.now());
    expect((await alive()).available).toBe(false);

    const svc = await start();
    const [record] = await registry.list();
    expect(record).toMatchObject({
      coordinator_id: `${hostname().replace(/[^A-Za-z0-9_.@-]/g, '_')}-${new URL(svc.url).port}`,
      url: svc.url,
      pid: process.pid,
      fresh_for_ms: config.coordinator.worker_stale_threshold_ms,
      stopped_at_ms: null,
    });
    expect(await alive()).toMatchObject({ available: true, alive: [record.coordinator_id] });

    await svc.stop();
    expect((await alive()).available).toBe(false);
  });

  it('keeps a held run across a restart; the worker that registers afterwards runs it', async () => {
    const first = await start();
    const held = await post(first, COORDINATOR_PATHS.dispatch, {
      dag_name: 'child',
      run_id: 'child-run',
      params: [],
      worker_selector: null,
      parent: null,
    });
    expect(held.body.outcome).toBe('held');
    await first.stop();

    const second = await start();
    const worker = { worker_id: 'worker-b', labels: { zone: 'b' } };
    await post(second, COORDINATOR_PATHS.heartbeat, {
      ...worker,
      max_active_runs: 1,
      running: [],
      host: 'b',
      pid: 1,
    });
    const polled = await post(second, COORDINATOR_PATHS.poll, { ...worker, wait_ms: 2000 });

    expect(polled.status).toBe(200);
    expect(polled.body.task).toMatchObject({
      run_id: 'child-run',
      dag_name: 'child',
      worker_selector: { zone: 'b' },
    });
  });

  it('records the held run as a dag.run.queued event carrying its conditions and selector', async () => {
    const svc = await start();
    await post(svc, COORDINATOR_PATHS.dispatch, {
      dag_name: 'child',
      run_id: 'child-run',
      params: [],
      worker_selector: { zone: 'c' },
      parent: null,
    });

    const events = await new FileEventLog({ dataDir: config.paths.data_dir, clock: systemClock }).list({
      types: ['dag.run.queued'],
    });

    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      run_id: 'child-run',
      worker_selector: { zone: 'c' },
      status: {
        conditions: [
          expect.objectContaining({ type: 'Runnable', reason: 'NoAvailableWorker' }),
          expect.anything(),
        ],
      },
    });
  });
});
