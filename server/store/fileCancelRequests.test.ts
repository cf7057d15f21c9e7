import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeCancelRequestsContract } from './cancelRequests.contract';
import { FileCancelRequests } from './fileCancelRequests';

async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-cancels-'));
}

describeCancelRequestsContract('FileCancelRequests', async () => {
  const dataDir = await tempDataDir();
  return {
    store: new FileCancelRequests({ dataDir }),
    cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
});

describe('FileCancelRequests on disk', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await tempDataDir();
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('keeps a request as a file named after the run that every store instance sees', async () => {
    await new FileCancelRequests({ dataDir }).request('r1', 1234);
    const dir = path.join(dataDir, 'cluster', 'cancels');
    expect(await fs.readdir(dir)).toEqual(['r1']);
    expect(JSON.parse(await fs.readFile(path.join(dir, 'r1'), 'utf8'))).toEqual({
      run_id: 'r1',
      requested_at_ms: 1234,
    });
    await fs.writeFile(path.join(dir, '.r2.tmp-1-abc'), '');
    const other = new FileCancelRequests({ dataDir });
    expect(await other.list()).toEqual(['r1']);
    await other.clear('r1');
    expect(await new FileCancelRequests({ dataDir }).has('r1')).toBe(false);
  });
});

describe('FileCancelRequests.requests', () => {
  it('lists each request with its time and reports a file that is not a request', async () => {
    const dataDir = await tempDataDir();
    const reports: string[] = [];
    const store = new FileCancelRequests({ dataDir, onCorrupt: (r) => reports.push(r.path) });
    await store.request('r1', 1234);
    await store.request('r2', 99);
    const broken = path.join(dataDir, 'cluster', 'cancels', 'r3');
    await fs.writeFile(broken, 'not json');
    expect(await store.requests()).toEqual([
      { run_id: 'r1', requested_at_ms: 1234 },
      { run_id: 'r2', requested_at_ms: 99 },
    ]);
    expect(reports).toEqual([broken]);
    await fs.rm(dataDir, { recursive: true, force: true });
  });
});
