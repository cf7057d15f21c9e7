// Services for the operation tests: in-memory stores, a real temp DAGU_HOME for DAG files and logs, and a
// clock the test sets; the real Dispatcher over in-memory distributed stores. Not used by production code.

import { MemoryArtifactStore } from '../store/artifactStore';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import { Dispatcher } from '../coordinator/dispatcher';
import { silentLogger, type Clock } from '../core/ports';
import { MemoryCancelRequests } from '../store/memoryCancelRequests';
import { MemoryCoordinatorRegistry } from '../store/memoryCoordinatorRegistry';
import { MemoryDispatchStore } from '../store/memoryDispatchStore';
import { MemoryEventLog } from '../store/memoryEventLog';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { MemoryRunStore } from '../store/memoryRunStore';
import { MemorySuspendFlags } from '../store/memorySuspendFlags';
import { MemoryWorkerRegistry } from '../store/memoryWorkerRegistry';
import { FileRunLogStore } from '../store/fileRunLogStore';
import { InstanceRegistry } from '../store/instanceRegistry';
import { FileDagDefinitions } from '../store/fileDagDefinitions';
import { ConsoleCache } from './consoleCache';
import { LogEventFeed } from './eventFeed';
import { processStarter, type Services } from './services';

/** A clock whose wall time the test moves; monotonic time follows it. */
export interface ManualClock extends Clock {
  set(nowMs: number): void;
  advance(ms: number): void;
}

export function manualClock(startMs: number): ManualClock {
  let now = startMs;
  return {
    nowMs: () => now,
    monoMs: () => now - startMs,
    set: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export interface TestServices extends Services {
  clock: ManualClock;
  runs: MemoryRunStore;
  queue: MemoryQueueStore;
  events: MemoryEventLog;
  /** In memory: a test puts the artifacts a run should have. */
  artifacts: MemoryArtifactStore;
  suspendFlags: MemorySuspendFlags;
  /** Not durable: the dispatcher refuses where it would hold (a test that needs a hold stubs `dispatcher`). */
  tasks: MemoryDispatchStore;
  workers: MemoryWorkerRegistry;
  cancels: MemoryCancelRequests;
  /** Holds one coordinator that never goes stale; a test of "no coordinator" puts it stopped. */
  coordinators: MemoryCoordinatorRegistry;
  /** The real registry over the temp home's data directory. */
  instances: InstanceRegistry;
  /** Writes `dags/<name>.yaml`. */
  writeDag(name: string, yaml: string): void;
  /** Writes a file under the logs directory and returns its path relative to it. */
  writeLog(relative: string, content: string): string;
  cleanup(): void;
}

export const T0 = Date.parse('2026-11-30T01:14:30Z');

export function testServices(overrides: (config: Config) => Config = (c) => c): TestServices {
  const home = mkdtempSync(path.join(tmpdir(), 'dagu-api-'));
  const config = overrides(loadConfig({ env: { NODE_ENV: 'test', DAGU_HOME: home } }));
  mkdirSync(config.paths.dags_dir, { recursive: true });
  mkdirSync(config.paths.log_dir, { recursive: true });
  const clock = manualClock(T0);
  const runs = new MemoryRunStore();
  const tasks = new MemoryDispatchStore();
  const workers = new MemoryWorkerRegistry();
  const cancels = new MemoryCancelRequests();
  const events = new MemoryEventLog({ clock });
  const coordinators = new MemoryCoordinatorRegistry();
  void coordinators.put({
    version: 1,
    coordinator_id: 'test-coordinator',
    host: 'localhost',
    pid: 1,
    url: 'http://127.0.0.1:50055',
    started_at_ms: T0,
    last_seen_ms: T0,
    fresh_for_ms: Number.MAX_SAFE_INTEGER,
    stopped_at_ms: null,
  });
  return {
    config,
    runs,
    queue: new MemoryQueueStore(),
    events,
    dags: new FileDagDefinitions(config.paths.dags_dir),
    logs: new FileRunLogStore(config.paths.log_dir),
    artifacts: new MemoryArtifactStore(),
    suspendFlags: new MemorySuspendFlags(),
    tasks,
    workers,
    cancels,
    coordinators,
    dispatcher: new Dispatcher({
      runs,
      tasks,
      workers,
      cancels,
      coordinators,
      clock,
      logger: silentLogger,
      waitMs: config.coordinator.worker_wait_timeout_ms,
      staleMs: config.coordinator.worker_stale_threshold_ms,
    }),
    instances: new InstanceRegistry(config.paths.data_dir),
    eventFeed: () => new LogEventFeed(events),
    wakeups: null,
    consoleCache: new ConsoleCache(new LogEventFeed(events)),
    listen: { host: config.host, port: config.port },
    clock,
    env: process.env,
    logger: silentLogger,
    startProcess: processStarter(config, process.env, null),
    writeDag(name, yaml) {
      writeFileSync(path.join(config.paths.dags_dir, `${name}.yaml`), yaml);
    },
    writeLog(relative, content) {
      const file = path.join(config.paths.log_dir, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return relative;
    },
    cleanup() {
      rmSync(home, { recursive: true, force: true });
    },
  };
}
