import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileRunLogStore } from './fileRunLogStore';
import { FileRunStore } from './fileRunStore';
import { describeRunLogStoreContract } from './runLogStore.contract';
import { LogOutsideError, type RunLogRef } from './runLogStore';

describeRunLogStoreContract('FileRunLogStore', async () => {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-runlogs-'));
  const logDir = path.join(home, 'logs');
  return {
    logs: new FileRunLogStore(logDir),
    runs: new FileRunStore({ dataDir: path.join(home, 'data'), logDir }),
    cleanup: () => fs.rm(home, { recursive: true, force: true }),
  };
});

describe('FileRunLogStore on the runner’s layout', () => {
  let home: string;
  let logs: FileRunLogStore;
  const ref = (over: Partial<RunLogRef> = {}): RunLogRef => ({
    dag_name: 'etl',
    run_id: 'r1',
    attempt: 1,
    name: 'greet.out',
    ...over,
  });
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-runlogs-'));
    logs = new FileRunLogStore(path.join(home, 'logs'));
  });
  afterEach(() => fs.rm(home, { recursive: true, force: true }));

  it('reads the files the runner wrote where it writes them', async () => {
    const dir = path.join(home, 'logs', 'etl', 'r1', '1');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'greet.out'), 'hi\n');
    await fs.writeFile(path.join(dir, 'greet.script'), 'echo hi');
    expect(await logs.stat(ref())).toEqual({ size: 3, lines: 1 });
    // Only logs are listed: not a step's script or its outputs file.
    expect(await logs.list({ dag_name: 'etl', run_id: 'r1' })).toEqual([
      { attempt: 1, name: 'greet.out', size: 3, lines: 1 },
    ]);
  });

  it("reads a log under a DAG's own log_dir when the ref names it", async () => {
    const own = path.join(home, 'custom');
    await logs.append(ref({ log_root: own }), 0, Buffer.from('mine\n'));
    expect(await fs.readFile(path.join(own, 'etl', 'r1', '1', 'greet.out'), 'utf8')).toBe('mine\n');
    expect(await logs.stat(ref())).toBeNull();
    expect(await logs.list({ dag_name: 'etl', run_id: 'r1', log_root: own })).toHaveLength(1);
  });

  it('refuses a log that is a symbolic link to a file outside its run’s directory', async () => {
    const secret = path.join(home, 'secret.txt');
    await fs.writeFile(secret, 'secret');
    const dir = path.join(home, 'logs', 'etl', 'r1', '1');
    await fs.mkdir(dir, { recursive: true });
    await fs.symlink(secret, path.join(dir, 'greet.out'));
    await expect(logs.stat(ref())).rejects.toBeInstanceOf(LogOutsideError);
    await expect(logs.seekLine(ref(), 3)).rejects.toBeInstanceOf(LogOutsideError);
    const read = async () => {
      for await (const _ of logs.read(ref(), 0, 10)) return;
    };
    await expect(read()).rejects.toBeInstanceOf(LogOutsideError);
    // A link that stays inside the run's directory is followed.
    await fs.writeFile(path.join(dir, 'real.log'), 'ok\n');
    await fs.symlink('real.log', path.join(dir, 'alias.log'));
    expect(await logs.stat(ref({ name: 'alias.log' }))).toEqual({ size: 3, lines: 1 });
  });

  it('follows a log that grows and one replaced by a shorter file', async () => {
    const dir = path.join(home, 'logs', 'etl', 'r1', '1');
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, 'greet.out');
    await fs.writeFile(file, Array.from({ length: 600 }, (_, i) => `l${i}\n`).join(''));
    expect(await logs.seekLine(ref(), 599)).toMatchObject({ line: 512 });
    await fs.appendFile(file, 'more\n');
    expect((await logs.stat(ref()))?.lines).toBe(601);
    await fs.rm(file);
    await fs.writeFile(file, 'new\n');
    expect(await logs.stat(ref())).toEqual({ size: 4, lines: 1 });
    expect(await logs.seekLine(ref(), 599)).toEqual({ offset: 0, line: 0 });
  });
});
