// A small cluster harness for the HA conformance tests: several real `bin/dagu scheduler` (or start-all)
// processes on one temp DAGU_HOME, each on its own health port, with short lock timings.

import path from 'node:path';
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

  constructor(extraEnv: Record<string, string> = {}) {
    this.home = tempHome({
      DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${T_MS}ms`,
      DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${R_MS}ms`,
      ...extraEnv,
    });
  }

  get dataDir() {
    return path.join(this.home.home, 'data');
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
