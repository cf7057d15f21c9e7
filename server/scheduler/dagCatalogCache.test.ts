import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CachedDag, DagSpecCache } from '../store/dagSpecCache';
import { DagCatalogCache } from './dagCatalogCache';
import { RecordingLogger } from '../testing/recordingLogger';

const dagText = (n: number) => `schedule: "${n} 1 * * *"\nsteps:\n  - name: t\n    command: "true"\n`;

/** A DagSpecCache in memory that counts what is kept in it. */
class MemorySpecCache implements DagSpecCache {
  readonly kept = new Map<string, { text: string; parsed: CachedDag }>();
  puts = 0;
  async get(file: string, text: string) {
    const e = this.kept.get(file);
    return e && e.text === text ? e.parsed : null;
  }
  async put(file: string, text: string, parsed: CachedDag) {
    this.puts++;
    this.kept.set(file, { text, parsed });
  }
}

describe('DagCatalogCache', () => {
  let dagsDir: string;
  beforeEach(async () => {
    dagsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-catalog-'));
  });
  afterEach(async () => {
    await fs.rm(dagsDir, { recursive: true, force: true });
  });
  const write = (name: string, text: string) => fs.writeFile(path.join(dagsDir, name), text);

  it('loads every valid DAG in file-name order, leaving out and logging an invalid one', async () => {
    for (let i = 0; i < 60; i++) await write(`d${String(i).padStart(2, '0')}.yaml`, dagText(i % 60));
    await write('broken.yaml', 'steps: [');
    const logger = new RecordingLogger();
    const dags = await new DagCatalogCache(dagsDir, logger).load();
    expect(dags.map((d) => d.name)).toEqual(
      Array.from({ length: 60 }, (_, i) => `d${String(i).padStart(2, '0')}`),
    );
    expect(logger.find('Invalid DAG file')).toHaveLength(1);
  });

  it('sees a DAG saved by the console (a file renamed over it) even with the same size and mtime', async () => {
    const file = path.join(dagsDir, 'etl.yaml');
    await write('etl.yaml', dagText(5));
    const catalog = new DagCatalogCache(dagsDir, new RecordingLogger());
    const mtime = new Date('2026-12-01T00:00:00Z'); // a whole second, as a coarse-mtime file system has it
    await fs.utimes(file, mtime, mtime);
    expect((await catalog.load())[0].schedule[0].expression).toBe('5 1 * * *');
    const { FileDagDefinitions } = await import('../store/fileDagDefinitions');
    const { dagVersion } = await import('../store/dagFiles');
    const saved = await new FileDagDefinitions(dagsDir).put('etl', dagText(6), {
      expectedVersion: dagVersion(dagText(5)),
    });
    expect(saved).toMatchObject({ ok: true, outcome: 'updated' });
    await fs.utimes(file, mtime, mtime);
    expect((await fs.stat(file)).mtimeMs).toBe(mtime.getTime());
    expect((await catalog.load())[0].schedule[0].expression).toBe('6 1 * * *');
  });

  it('keeps each DAG it parses for the run processes, and parses again only a file that changed', async () => {
    await write('etl.yaml', dagText(5));
    await write('report.yaml', dagText(6));
    const specs = new MemorySpecCache();
    const catalog = new DagCatalogCache(dagsDir, new RecordingLogger(), specs);
    const first = await catalog.load();
    expect([...specs.kept.keys()].sort()).toEqual([
      path.join(dagsDir, 'etl.yaml'),
      path.join(dagsDir, 'report.yaml'),
    ]);
    expect(specs.kept.get(path.join(dagsDir, 'etl.yaml'))!.parsed.dag).toEqual(first[0]);

    const again = await catalog.load();
    expect(again[0]).toBe(first[0]); // unchanged: the same objects, nothing parsed or kept again
    expect(specs.puts).toBe(2);

    await write('etl.yaml', `${dagText(7)}# edited\n`);
    await fs.utimes(path.join(dagsDir, 'etl.yaml'), new Date(), new Date(Date.now() + 5000));
    const edited = await catalog.load();
    expect(edited[0].schedule[0].expression).toBe('7 1 * * *');
    expect(specs.puts).toBe(3);
  });

  it('forgets a removed file', async () => {
    await write('etl.yaml', dagText(5));
    const catalog = new DagCatalogCache(dagsDir, new RecordingLogger());
    expect(await catalog.load()).toHaveLength(1);
    await fs.rm(path.join(dagsDir, 'etl.yaml'));
    expect(await catalog.load()).toEqual([]);
  });
});
