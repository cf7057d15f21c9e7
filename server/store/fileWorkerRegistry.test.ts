import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../testing/recordingLogger';
import { FileWorkerRegistry } from './fileWorkerRegistry';
import { describeWorkerRegistryContract, testWorkerRecord } from './workerRegistry.contract';

async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-workers-'));
}

describeWorkerRegistryContract('FileWorkerRegistry', async () => {
  const dataDir = await tempDataDir();
  return {
    store: new FileWorkerRegistry({ dataDir }),
    cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
});

describe('FileWorkerRegistry on disk', () => {
  let dataDir: string;
  let logger: RecordingLogger;
  let registry: FileWorkerRegistry;
  let dir: string;

  beforeEach(async () => {
    dataDir = await tempDataDir();
    logger = new RecordingLogger();
    registry = new FileWorkerRegistry({ dataDir, logger });
    dir = path.join(dataDir, 'cluster', 'workers');
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('keeps one file per worker, replaced whole on every heartbeat', async () => {
    const record = testWorkerRecord({ worker_id: 'w1@host-a' });
    for (let i = 0; i < 5; i++)
      await registry.put({ ...record, last_heartbeat_ms: record.last_heartbeat_ms + i });
    expect(await fs.readdir(dir)).toEqual(['w1@host-a.json']);
    expect(JSON.parse(await fs.readFile(path.join(dir, 'w1@host-a.json'), 'utf8'))).toEqual({
      ...record,
      last_heartbeat_ms: record.last_heartbeat_ms + 4,
    });
    expect(await new FileWorkerRegistry({ dataDir }).get('w1@host-a')).toMatchObject({
      worker_id: 'w1@host-a',
    });
  });

  it('deletes the file of a removed worker and nothing else, and removing it again is no error', async () => {
    await registry.put(testWorkerRecord({ worker_id: 'w1' }));
    await registry.put(testWorkerRecord({ worker_id: 'w2' }));
    await fs.writeFile(path.join(dir, 'w3.json'), '{"worker_id": "w3", "lab');

    await registry.remove('w1');
    await registry.remove('w1');

    expect((await fs.readdir(dir)).sort()).toEqual(['w2.json', 'w3.json']);
    expect(await new FileWorkerRegistry({ dataDir }).get('w1')).toBeNull();
    await expect(registry.remove('../w2')).rejects.toThrow();
    expect((await fs.readdir(dir)).sort()).toEqual(['w2.json', 'w3.json']);
  });

  it('skips and logs a corrupt worker file once, keeps it, and lists the others', async () => {
    await registry.put(testWorkerRecord({ worker_id: 'w1' }));
    await registry.put(testWorkerRecord({ worker_id: 'w3' }));
    const broken = path.join(dir, 'w2.json');
    await fs.writeFile(broken, '{"worker_id": "w2", "lab');
    await fs.writeFile(path.join(dir, '.w1.json.tmp-1-abc'), 'half');
    await fs.writeFile(path.join(dir, 'README'), 'hello');
    expect((await registry.list()).map((w) => w.worker_id)).toEqual(['w1', 'w3']);
    expect((await registry.list()).map((w) => w.worker_id)).toEqual(['w1', 'w3']);
    expect(await registry.get('w2')).toBeNull();
    expect(logger.find('corrupt')).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: { path: broken, error: expect.stringMatching(/invalid JSON/) },
      }),
    ]);
    await expect(fs.readFile(broken, 'utf8')).resolves.toContain('"w2"');
  });
});
