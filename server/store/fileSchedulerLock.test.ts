import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileSchedulerLock } from './fileSchedulerLock';
import { lockRecord, schedulerLockContract } from './schedulerLock.contract';

const roots: string[] = [];
const freshDataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dagu-lock-'));
  roots.push(dir);
  return dir;
};
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

schedulerLockContract('FileSchedulerLock', async () => new FileSchedulerLock({ dataDir: freshDataDir() }));

describe('FileSchedulerLock', () => {
  it('reads a truncated lock file as corrupt, keeping the raw bytes', async () => {
    const lock = new FileSchedulerLock({ dataDir: freshDataDir() });
    mkdirSync(lock.dir, { recursive: true });
    writeFileSync(lock.file, '{"version":1,"holder":"tok');
    expect(await lock.read()).toMatchObject({ kind: 'corrupt', raw: '{"version":1,"holder":"tok' });
    writeFileSync(lock.file, '');
    expect(await lock.read()).toMatchObject({ kind: 'corrupt', error: 'empty file' });
  });

  it('fails, rather than creating it, when the data directory does not exist', async () => {
    const lock = new FileSchedulerLock({ dataDir: path.join(freshDataDir(), 'missing') });
    expect(await lock.read()).toEqual({ kind: 'none' });
    await expect(lock.create(lockRecord())).rejects.toThrow(/ENOENT/);
  });

  it('leaves no temp files behind and removes only markers of epochs long superseded', async () => {
    const lock = new FileSchedulerLock({ dataDir: freshDataDir() });
    await lock.create(lockRecord({ epoch: 1 }));
    for (let epoch = 1; epoch <= 6; epoch++) {
      const observed = await lock.read();
      expect(await lock.takeOver(observed, lockRecord({ holder: `h${epoch}`, epoch: epoch + 1 }))).toBe(true);
    }
    expect(readdirSync(lock.dir).sort()).toEqual([
      'lock.json',
      'takeover-4-0',
      'takeover-5-0',
      'takeover-6-0',
    ]);
  });

  it('lets exactly one of several processes win a takeover of the same record', async () => {
    const dataDir = freshDataDir();
    const lock = new FileSchedulerLock({ dataDir });
    await lock.create(lockRecord({ epoch: 3 }));
    const observed = JSON.stringify(await lock.read());
    const script = `
      import { FileSchedulerLock } from ${JSON.stringify(path.resolve(__dirname, 'fileSchedulerLock.ts'))};
      const lock = new FileSchedulerLock({ dataDir: process.argv[1] });
      const next = { ...JSON.parse(process.argv[2]).record, holder: process.argv[3], epoch: 4, counter: 0 };
      const won = await lock.takeOver(JSON.parse(process.argv[2]), next);
      process.stdout.write(won ? 'won' : 'lost');`;
    const tsx = path.resolve(__dirname, '../../node_modules/.bin/tsx');
    const outputs = await Promise.all(
      Array.from(
        { length: 4 },
        (_, i) =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(tsx, ['--input-type=module', '-e', script, dataDir, observed, `proc-${i}`]);
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.on('error', reject);
            child.on('exit', () => resolve(out));
          }),
      ),
    );
    expect(outputs.filter((o) => o === 'won')).toHaveLength(1);
    expect(outputs.filter((o) => o === 'lost')).toHaveLength(3);
  }, 30_000);
});
