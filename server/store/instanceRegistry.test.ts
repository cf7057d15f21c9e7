import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetDeadPredecessors, InstanceRegistry, type InstanceRecord } from './instanceRegistry';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dagu-instances-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const record = (
  id: string,
  host: string,
  pid: number,
  updatedAt = '2026-11-30T01:00:00.000Z',
): InstanceRecord => ({
  version: 1,
  id,
  host,
  pid,
  role: 'standby',
  since: updatedAt,
  port: 8090,
  lock_holder: null,
  last_renewal_seen: null,
  updated_at: updatedAt,
});

describe('InstanceRegistry', () => {
  it('lists what was published, skips and reports a corrupt record, and removes its own', async () => {
    const corrupt: string[] = [];
    const reg = new InstanceRegistry(dir, (r) => corrupt.push(r.path));
    await reg.publish(record('b-1', 'b', 1));
    await reg.publish(record('a-1', 'a', 1));
    writeFileSync(path.join(dir, 'scheduler', 'instances', 'x.json'), '{"version":1,');
    expect((await reg.list()).map((r) => r.id)).toEqual(['a-1', 'b-1']);
    expect(corrupt).toEqual([path.join(dir, 'scheduler', 'instances', 'x.json')]);
    await reg.remove('a-1');
    expect((await reg.list()).map((r) => r.id)).toEqual(['b-1']);
  });

  it('prunes records not refreshed within the given age', async () => {
    const reg = new InstanceRegistry(dir);
    await reg.publish(record('old', 'a', 1, '2026-11-30T01:00:00.000Z'));
    await reg.publish(record('new', 'a', 2, '2026-11-30T01:04:00.000Z'));
    expect(await reg.prune(Date.parse('2026-11-30T01:05:00.000Z'), 120_000)).toEqual(['old']);
    expect((await reg.list()).map((r) => r.id)).toEqual(['new']);
  });
});

describe('forgetDeadPredecessors', () => {
  it('removes records of this host whose process is gone or whose pid is now ours, and nothing else', async () => {
    const reg = new InstanceRegistry(dir);
    await reg.publish(record('me', 'a', 300));
    await reg.publish(record('dead', 'a', 100));
    await reg.publish(record('alive', 'a', 200));
    await reg.publish(record('same-pid', 'a', 300));
    await reg.publish(record('other-host', 'b', 100));
    const alive = new Set([200, 300]);

    const gone = await forgetDeadPredecessors(reg, { id: 'me', host: 'a', pid: 300 }, (pid) =>
      alive.has(pid),
    );

    expect(gone.sort()).toEqual(['dead', 'same-pid']);
    expect((await reg.list()).map((r) => r.id)).toEqual(['alive', 'me', 'other-host']);
  });
});

describe('InstanceRegistry with damaged records', () => {
  it('skips a corrupt or foreign-version record and reports each once, however often it lists', async () => {
    const reports: Array<{ path: string; error: string }> = [];
    const reg = new InstanceRegistry(dir, (r) => reports.push(r));
    await reg.publish(record('good', 'a', 1));
    const instances = path.join(dir, 'scheduler', 'instances');
    writeFileSync(path.join(instances, 'torn.json'), '{"version":1,"id":"to');
    writeFileSync(
      path.join(instances, 'future.json'),
      JSON.stringify({ ...record('future', 'b', 2), version: 2 }),
    );

    for (let i = 0; i < 3; i++) expect((await reg.list()).map((r) => r.id)).toEqual(['good']);

    expect(reports.map((r) => [path.basename(r.path), r.error.replace(/:.*/, '')]).sort()).toEqual([
      ['future.json', 'unsupported version 2 (this dagu reads version 1)'],
      ['torn.json', 'invalid JSON'],
    ]);
  });
});
