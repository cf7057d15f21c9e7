import fs, { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as files from './fileCalls';

describe('fileCalls', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dagu-filecalls-'));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    files.blockFileCallsWhile(() => false);
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports a recursive mkdir's real error, not the ENOENT Node 20 gives for it (a full disk)", async () => {
    // What Node 20's asynchronous recursive mkdir does when a directory cannot be made: ENOENT, whatever the
    // cause. The plain mkdir of that directory fails with the real error (here ENOSPC).
    const full = path.join(dir, 'full');
    const mkdirCallback = fs.mkdir.bind(fs) as (...args: unknown[]) => void;
    vi.spyOn(fs, 'mkdir').mockImplementation(((target: string, ...rest: unknown[]) => {
      const done = rest.pop() as (err: NodeJS.ErrnoException | null) => void;
      const recursive = (rest[0] as { recursive?: boolean } | undefined)?.recursive === true;
      if (!target.startsWith(full)) return mkdirCallback(target, ...rest, done);
      const code = recursive ? 'ENOENT' : 'ENOSPC';
      const text = recursive ? 'no such file or directory' : 'no space left on device';
      done(Object.assign(new Error(`${code}: ${text}, mkdir '${target}'`), { code }));
    }) as typeof fs.mkdir);

    await expect(files.mkdir(path.join(full, 'a', 'b'), true)).rejects.toMatchObject({
      code: 'ENOSPC',
      message: `ENOSPC: no space left on device, mkdir '${full}'`,
    });
    // The missing parents that could be made are made; an existing tree is still fine.
    await files.mkdir(path.join(dir, 'x', 'y'), true);
    expect(fs.statSync(path.join(dir, 'x', 'y')).isDirectory()).toBe(true);
  });

  it('makes the missing directories one by one when a recursive mkdir says ENOENT and they can be made', async () => {
    const mkdirCallback = fs.mkdir.bind(fs) as (...args: unknown[]) => void;
    let told = false;
    vi.spyOn(fs, 'mkdir').mockImplementation(((target: string, ...rest: unknown[]) => {
      const done = rest.pop() as (err: NodeJS.ErrnoException | null) => void;
      // Once, as when another process removed a parent just then: made again one by one.
      if (!told && (rest[0] as { recursive?: boolean } | undefined)?.recursive === true) {
        told = true;
        return done(
          Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${target}'`), {
            code: 'ENOENT',
          }),
        );
      }
      return mkdirCallback(target, ...rest, done);
    }) as typeof fs.mkdir);

    await files.mkdir(path.join(dir, 'p', 'q', 'r'), true);
    expect(fs.statSync(path.join(dir, 'p', 'q', 'r')).isDirectory()).toBe(true);
  });

  /** Every call once; returns what the reads saw. */
  async function exercise(): Promise<unknown[]> {
    const sub = path.join(dir, 'a', 'b');
    await files.mkdir(sub, true);
    await files.mkdir(sub, true); // recursive: an existing directory is fine
    const file = path.join(sub, 'f.txt');
    const fd = await files.open(file, 'wx', 0o600);
    await files.writeAll(fd, 'hello ');
    expect(await files.writeOnce(fd, Buffer.from('world'))).toBe(5);
    await files.fsync(fd);
    const size = (await files.fstat(fd)).size;
    await files.close(fd);
    await files.appendFile(file, '!');
    await files.link(file, path.join(sub, 'g.txt'));
    await files.rename(path.join(sub, 'g.txt'), path.join(sub, 'h.txt'));
    const readFd = await files.open(file, 'r');
    const buf = Buffer.alloc(5);
    const got = await files.readAt(readFd, buf, 6);
    await files.close(readFd);
    await files.writeFile(path.join(sub, 'w.txt'), 'whole', 0o644);
    const names = (await files.readdir(sub)).sort();
    await files.unlink(path.join(sub, 'h.txt'));
    return [
      size,
      got,
      buf.toString(),
      await files.readText(file),
      (await files.stat(file)).nlink,
      names,
      (await files.readdir(sub)).sort(),
    ];
  }

  const expected = [11, 5, 'world', 'hello world!', 1, ['f.txt', 'h.txt', 'w.txt'], ['f.txt', 'w.txt']];

  it('gives the same results whether the calls block or not', async () => {
    expect(await exercise()).toEqual(expected);
    rmSync(path.join(dir, 'a'), { recursive: true });
    files.blockFileCallsWhile(() => true);
    expect(await exercise()).toEqual(expected);
  });

  it('rejects with the error code either way', async () => {
    const missing = path.join(dir, 'nope', 'x');
    await expect(files.readText(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await files.mkdir(path.join(dir, 'd'));
    await expect(files.mkdir(path.join(dir, 'd'))).rejects.toMatchObject({ code: 'EEXIST' });
    files.blockFileCallsWhile(() => true);
    await expect(files.readText(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(files.mkdir(path.join(dir, 'd'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(files.open(path.join(dir, 'd'), 'wx')).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('blocks only while the predicate holds, asking it at each call', async () => {
    const syncStat = vi.spyOn(fs, 'statSync');
    const asyncStat = vi.spyOn(fs, 'stat');
    let supervising = false;
    files.blockFileCallsWhile(() => !supervising);
    expect(files.fileCallsBlock()).toBe(true);
    await files.stat(dir);
    expect([syncStat.mock.calls.length, asyncStat.mock.calls.length]).toEqual([1, 0]);

    supervising = true;
    expect(files.fileCallsBlock()).toBe(false);
    await files.stat(dir);
    expect([syncStat.mock.calls.length, asyncStat.mock.calls.length]).toEqual([1, 1]);

    supervising = false;
    await files.stat(dir);
    expect([syncStat.mock.calls.length, asyncStat.mock.calls.length]).toEqual([2, 1]);
  });
});
