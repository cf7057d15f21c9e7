import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../runner/testSupport';
import {
  hostPidOf,
  registerHostedRun,
  requestHostedStop,
  runHostDir,
  sweepDeadHosts,
  takeStopRequests,
  unregisterHostedRun,
} from './runHostFiles';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('dagu-run-host-')));
afterEach(() => cleanup());

const A = '20261130-011500-0a0a0a0a';
const B = '20261130-011500-0b0b0b0b';

describe('the stop channel of run hosts', () => {
  it('records the host of a run, whole, and forgets it with its stop request', async () => {
    expect(await hostPidOf(dir, A)).toBeNull();
    await registerHostedRun(dir, A, 4242);
    expect(await hostPidOf(dir, A)).toBe(4242);
    // No temp file is left beside the record.
    expect(readdirSync(runHostDir(dir))).toEqual([`${A}.host`]);
    await requestHostedStop(dir, A, 'SIGTERM');
    await unregisterHostedRun(dir, A);
    expect(readdirSync(runHostDir(dir))).toEqual([]);
    await unregisterHostedRun(dir, A); // twice: nothing left to remove is fine
  });

  it('drops a stop request left from an earlier attempt when the run is registered again', async () => {
    await registerHostedRun(dir, A, 1);
    await requestHostedStop(dir, A, 'SIGTERM');
    await registerHostedRun(dir, A, 2);
    expect(await takeStopRequests(dir, new Set([A]))).toEqual([]);
  });

  it("hands a host only its own runs' stop requests, each once, with the signal asked for", async () => {
    await registerHostedRun(dir, A, 1);
    await registerHostedRun(dir, B, 2);
    await requestHostedStop(dir, A, 'SIGINT');
    await requestHostedStop(dir, B, 'SIGTERM');
    expect(await takeStopRequests(dir, new Set([A]))).toEqual([{ runId: A, signal: 'SIGINT' }]);
    expect(await takeStopRequests(dir, new Set([A]))).toEqual([]);
    expect(await takeStopRequests(dir, new Set([B]))).toEqual([{ runId: B, signal: 'SIGTERM' }]);
    // No directory yet: nothing asked.
    expect(await takeStopRequests(path.join(dir, 'none'), new Set([A]))).toEqual([]);
  });

  it('reads a record without a valid pid as no host, and refuses a run ID that is not a name', async () => {
    mkdirSync(runHostDir(dir), { recursive: true });
    writeFileSync(path.join(runHostDir(dir), `${A}.host`), '{"pid":');
    expect(await hostPidOf(dir, A)).toBeNull();
    await expect(hostPidOf(dir, '../escape')).rejects.toThrow();
  });

  it('sweeps the records of hosts that are gone, and keeps those of live ones and unreadable ones', async () => {
    await registerHostedRun(dir, A, 111);
    await requestHostedStop(dir, A, 'SIGTERM');
    await registerHostedRun(dir, B, 222);
    const C = '20261130-011500-0c0c0c0c';
    writeFileSync(path.join(runHostDir(dir), `${C}.host`), 'not json');
    writeFileSync(path.join(runHostDir(dir), 'stray name.host'), '{"pid":333}');

    expect(await sweepDeadHosts(dir, (pid) => pid === 222)).toEqual([A]);

    expect(existsSync(path.join(runHostDir(dir), `${A}.host`))).toBe(false);
    expect(existsSync(path.join(runHostDir(dir), `${A}.stop`))).toBe(false);
    expect(await hostPidOf(dir, B)).toBe(222);
    expect(readdirSync(runHostDir(dir)).sort()).toEqual([`${B}.host`, `${C}.host`, 'stray name.host'].sort());
    expect(await sweepDeadHosts(path.join(dir, 'none'), () => false)).toEqual([]);
  });
});
