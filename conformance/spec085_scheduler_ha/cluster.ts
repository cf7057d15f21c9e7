// A small cluster harness for the HA conformance tests: several real `bin/dagu scheduler` (or start-all)
// processes of one installation on either storage backend (one temp DAGU_HOME, plus a schema of its own on
// postgres), each on its own health port, with short lock timings. Tests read the installation through its
// stores, as its processes do, so that one test reads the same on both backends.

import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ControlPlane } from '../../server/store/controlPlane';
import { InstallationStores, type BackendUnderTest } from '../../tests/integration/backends';
import {
  freePort,
  startService,
  tempHome,
  type Service,
  type TempHome,
} from '../../tests/integration/harness';

export const T_MS = 3000;
export const R_MS = 500;
export const I_MS = Math.min(7000, T_MS / 4);
/** Process start-up allowance on this 2-core machine (node + bundle + first lock attempt). */
export const STARTUP_MS = 1500;
/**
 * How late a scheduler's timer may fire (and log) after the moment the protocol bounds, on a loaded 2-core
 * machine. Bounds on durations add only this to the protocol's figures: they are checked on the time stamps
 * of the schedulers' own log records, so the test's own polling adds nothing.
 */
export const TIMER_SLACK_MS = 500;
/** How long a test waits for an event whose timing it then checks on the event's own time stamp. */
export const EVENT_DEADLINE_MS = 20_000;

export interface Instance {
  name: string;
  port: number;
  service: Service;
  health(query?: string): Promise<{ code: number; body: { status?: string; role?: string } | null }>;
}

export class Cluster {
  readonly home: TempHome;
  readonly instances: Instance[] = [];
  private readonly stores: InstallationStores;

  constructor(
    readonly backend: BackendUnderTest,
    extraEnv: Record<string, string> = {},
  ) {
    this.home = tempHome({
      ...backend.installationEnv(),
      DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${T_MS}ms`,
      DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${R_MS}ms`,
      ...extraEnv,
    });
    this.stores = new InstallationStores(this.home.env);
  }

  /** The installation's stores (runs, events, instances…), opened on first use. */
  plane(): Promise<ControlPlane> {
    return this.stores.get();
  }

  /**
   * Overwrites the lock record behind the active scheduler's back, as if another instance had taken it with
   * a newer epoch: the file replaced by rename, or the lease and heartbeat rows updated in one transaction.
   */
  async stealLock(): Promise<void> {
    const now = new Date().toISOString();
    const intruder = {
      holder: 'intruder-token',
      instance_id: 'intruder',
      host: 'elsewhere',
      pid: 1,
      epoch: 1000,
    };
    if (this.backend.name === 'postgres') {
      const s = this.home.env.DAGU_POSTGRES_SCHEMA!;
      const updated = await this.backend.psql(
        `update ${s}.scheduler_lease set holder = '${intruder.holder}', instance_id = '${intruder.instance_id}',
           host = '${intruder.host}', pid = ${intruder.pid}, epoch = ${intruder.epoch}, released = false,
           acquired_at = '${now}' where name = 'scheduler' returning name;
         update ${s}.scheduler_heartbeat set counter = 0, renewed_at = '${now}' where name = 'scheduler'
           returning name;`,
      );
      if (!updated.includes('scheduler')) throw new Error('there was no lock record to steal');
      return;
    }
    const dir = path.join(this.home.home, 'data', 'scheduler', 'lock');
    const record = {
      version: 1,
      ...intruder,
      counter: 0,
      released: false,
      acquired_at: now,
      renewed_at: now,
    };
    writeFileSync(path.join(dir, 'lock.json.tmp-test'), JSON.stringify(record));
    renameSync(path.join(dir, 'lock.json.tmp-test'), path.join(dir, 'lock.json'));
  }

  async start(
    name: string,
    opts: { command?: string[]; env?: Record<string, string> } = {},
  ): Promise<Instance> {
    const port = await freePort();
    const env = { ...this.home.env, DAGU_SCHEDULER_PORT: String(port), ...opts.env };
    const service = startService(opts.command ?? ['scheduler'], env);
    const inst: Instance = {
      name,
      port,
      service,
      async health(query = '') {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/health${query}`, {
            signal: AbortSignal.timeout(2000),
          });
          return { code: r.status, body: (await r.json()) as { status?: string; role?: string } };
        } catch {
          return { code: 0, body: null };
        }
      },
    };
    this.instances.push(inst);
    return inst;
  }

  /** Resolves with the instance that reports active, waiting up to `timeoutMs`. */
  async active(timeoutMs = 10_000, among = this.instances): Promise<Instance> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const i of among) {
        if (i.service.child.exitCode !== null) continue;
        if ((await i.health('?role=active')).code === 200) return i;
      }
      if (Date.now() > deadline) throw new Error(`no active scheduler within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  async stopAll() {
    await Promise.all(this.instances.map((i) => i.service.stop('SIGKILL')));
    await this.stores.close();
    this.home.cleanup();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for a process to exit and returns its code. */
export function exitCode(i: Instance, timeoutMs: number): Promise<number | null> {
  const child = i.service.child;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${i.name} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}
