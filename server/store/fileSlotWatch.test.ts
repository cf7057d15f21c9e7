import { EventEmitter } from 'node:events';
import { watch as watchFs, type FSWatcher } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../testing/recordingLogger';
import type { SlotChange } from './controlPlane';
import { FileSlotWatch } from './fileSlotWatch';

const homes: string[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) await fs.rm(h, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-slotwatch-'));
  homes.push(dir);
  return dir;
}

async function until(what: string, test: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('FileSlotWatch', () => {
  it('goes live once its probe is reported, then reports run markers and queue items made on this host', async () => {
    const data = await dataDir();
    const watch = new FileSlotWatch({ dataDir: data, logger: new RecordingLogger() });
    const seen: SlotChange[] = [];
    const off = watch.subscribe((c) => seen.push(c));
    expect(watch.live()).toBe(false);
    await until('live', () => watch.live());
    // The probe itself is not reported, nor is anything else made in the directory.
    expect(seen).toEqual([]);

    await fs.writeFile(path.join(data, 'active', 'run-1.json'), '{}');
    await fs.writeFile(path.join(data, 'active', '.run-1.json.tmp'), '');
    await until('marker made', () => seen.some((c) => c.kind === 'run' && c.runId === 'run-1'));
    seen.length = 0;
    await fs.unlink(path.join(data, 'active', 'run-1.json'));
    await until('marker removed', () => seen.some((c) => c.kind === 'run' && c.runId === 'run-1'));
    expect(seen.every((c) => c.kind === 'run' && c.runId === 'run-1')).toBe(true);

    // A queue made after the watch was set is watched too.
    seen.length = 0;
    await fs.mkdir(path.join(data, 'queue', 'etl'));
    await until('queue made', () => seen.some((c) => c.kind === 'queue'));
    await new Promise((r) => setTimeout(r, 50));
    seen.length = 0;
    await fs.writeFile(path.join(data, 'queue', 'etl', 'item.json'), '{}');
    await until('item stored', () => seen.some((c) => c.kind === 'queue'));

    off();
    expect(watch.live()).toBe(false);
    seen.length = 0;
    await fs.writeFile(path.join(data, 'active', 'run-2.json'), '{}');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
  });

  it('watches the queues that exist when it starts', async () => {
    const data = await dataDir();
    await fs.mkdir(path.join(data, 'queue', 'load'), { recursive: true });
    const watch = new FileSlotWatch({ dataDir: data, logger: new RecordingLogger() });
    const seen: SlotChange[] = [];
    const off = watch.subscribe((c) => seen.push(c));
    await until('live', () => watch.live());
    await fs.writeFile(path.join(data, 'queue', 'load', 'item.json'), '{}');
    await until('item stored', () => seen.some((c) => c.kind === 'queue'));
    off();
  });

  it('stays off, saying so once, on a filesystem that does not report changes', async () => {
    const data = await dataDir();
    const logger = new RecordingLogger();
    const made: EventEmitter[] = [];
    // A watch that is set but never reports anything, as on some FUSE volumes.
    const deafWatch = () => {
      const w = Object.assign(new EventEmitter(), { close: () => undefined });
      made.push(w);
      return w as unknown as FSWatcher;
    };
    const watch = new FileSlotWatch({ dataDir: data, logger, watch: deafWatch, probeTimeoutMs: 50 });
    const seen: SlotChange[] = [];
    const off = watch.subscribe((c) => seen.push(c));
    await until('judged', () => logger.find('the data directory does not report changes').length > 0);
    expect(made.length).toBeGreaterThan(0);
    expect(watch.live()).toBe(false);
    off();
  });

  it('tries again later when a watch cannot be set, polling meanwhile', async () => {
    const data = await dataDir();
    let calls = 0;
    const limited = (dir: string, onChange: (file: string | null) => void): FSWatcher => {
      calls++;
      if (calls === 1)
        throw Object.assign(new Error('ENOSPC: inotify watch limit reached'), { code: 'ENOSPC' });
      return watchFs(dir, { persistent: false }, (_e, file) =>
        onChange(typeof file === 'string' ? file : null),
      );
    };
    const watch = new FileSlotWatch({
      dataDir: data,
      logger: new RecordingLogger(),
      watch: limited,
      retryMs: 50,
    });
    const off = watch.subscribe(() => undefined);
    expect(watch.live()).toBe(false);
    await until('live after a retry', () => watch.live());
    expect(calls).toBeGreaterThan(1);
    off();
  });
});
