import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../testing/recordingLogger';
import { describeCoordinatorRegistryContract, testCoordinatorRecord } from './coordinatorRegistry.contract';
import { coordinatorIdOf } from './distributedDir';
import { FileCoordinatorRegistry } from './fileCoordinatorRegistry';

async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-coordinators-'));
}

describeCoordinatorRegistryContract('FileCoordinatorRegistry', async () => {
  const dataDir = await tempDataDir();
  return {
    store: new FileCoordinatorRegistry({ dataDir }),
    cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
});

describe('FileCoordinatorRegistry on disk', () => {
  let dataDir: string;
  let logger: RecordingLogger;
  let registry: FileCoordinatorRegistry;
  let dir: string;

  beforeEach(async () => {
    dataDir = await tempDataDir();
    logger = new RecordingLogger();
    registry = new FileCoordinatorRegistry({ dataDir, logger });
    dir = path.join(dataDir, 'cluster', 'coordinators');
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the record where every process of the data directory reads it', async () => {
    const record = testCoordinatorRecord({ coordinator_id: 'host-a-50055' });
    await registry.put(record);
    expect(await fs.readdir(dir)).toEqual(['host-a-50055.json']);
    expect(await new FileCoordinatorRegistry({ dataDir }).list()).toEqual([record]);
  });

  it('skips and logs a corrupt or foreign record once, keeps it, and lists the others', async () => {
    await registry.put(testCoordinatorRecord({ coordinator_id: 'c1' }));
    const broken = path.join(dir, 'c2.json');
    await fs.writeFile(broken, '{"coordinator_id": "c2", "last');
    await fs.writeFile(
      path.join(dir, 'c3.json'),
      JSON.stringify(testCoordinatorRecord({ coordinator_id: 'c3', version: 2 as 1 })),
    );
    await fs.writeFile(path.join(dir, '.c1.json.tmp-1-abc'), 'half');
    expect((await registry.list()).map((r) => r.coordinator_id)).toEqual(['c1']);
    expect((await registry.list()).map((r) => r.coordinator_id)).toEqual(['c1']);
    expect(logger.find('Skipping a corrupt coordinator record')).toHaveLength(2);
    await expect(fs.readFile(broken, 'utf8')).resolves.toContain('"c2"');
  });
});

describe('coordinatorIdOf', () => {
  it('names a coordinator after its host and port, in characters a file name can hold', () => {
    expect(coordinatorIdOf('host-a.example.com', 50055)).toBe('host-a.example.com-50055');
    expect(coordinatorIdOf('weird host/name', 1)).toBe('weird_host_name-1');
    expect(coordinatorIdOf('', 1)).toBe('host-1');
    expect(coordinatorIdOf('h'.repeat(300), 50055)).toHaveLength(128);
  });
});
