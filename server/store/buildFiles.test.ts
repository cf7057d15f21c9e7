import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildPathKey, resolveBuildPath, snapshotFile } from './buildFiles';
import { fsPromises } from './fsPromises';

let root: string;
beforeEach(async () => {
  // realpath: os.tmpdir() may itself be reached through a symlink (macOS /var → /private/var).
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-buildfiles-')));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

describe('snapshotFile', () => {
  it('hashes a regular file', async () => {
    const file = path.join(root, 'in.txt');
    await fs.writeFile(file, 'hello build\n');
    expect(await snapshotFile('src', file)).toEqual({
      name: 'src',
      path: file,
      size: 12,
      digest: sha256('hello build\n'),
    });
  });

  it('hashes a file larger than one read chunk', async () => {
    const file = path.join(root, 'big.bin');
    const content = 'x'.repeat((1 << 20) * 2 + 17);
    await fs.writeFile(file, content);
    expect(await snapshotFile('big', file)).toMatchObject({ size: content.length, digest: sha256(content) });
  });

  it('refuses a symlink, even to a regular file, and a directory', async () => {
    const target = path.join(root, 'real.txt');
    await fs.writeFile(target, 'x');
    const link = path.join(root, 'link.txt');
    await fs.symlink(target, link);
    await expect(snapshotFile('l', link)).rejects.toThrow(`${link} is not a regular non-symlink file`);
    await expect(snapshotFile('d', root)).rejects.toThrow(`${root} is not a regular non-symlink file`);
  });

  it('rejects a missing file with its ENOENT error', async () => {
    const missing = path.join(root, 'nope.txt');
    await expect(snapshotFile('m', missing)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('hashes again when the file changed while it was read, and gives up after three tries', async () => {
    const file = path.join(root, 'busy.txt');
    await fs.writeFile(file, 'v1');
    const realLstat = fsPromises().lstat.bind(fsPromises());
    let calls = 0;
    // Every stat sees a newer mtime: a writer that never stops.
    vi.spyOn(fsPromises(), 'lstat').mockImplementation((async (p: string) => {
      const st = await realLstat(p);
      st.mtimeMs += ++calls;
      return st;
    }) as typeof realLstat);
    await expect(snapshotFile('b', file)).rejects.toThrow(`file changed while hashing: ${file}`);
    expect(calls).toBe(6);
  });

  it('keeps the second hash when the file held still the second time', async () => {
    const file = path.join(root, 'settling.txt');
    await fs.writeFile(file, 'v2');
    const realLstat = fsPromises().lstat.bind(fsPromises());
    let calls = 0;
    vi.spyOn(fsPromises(), 'lstat').mockImplementation((async (p: string) => {
      const st = await realLstat(p);
      if (++calls === 2) st.mtimeMs += 1; // changed during the first hashing only
      return st;
    }) as typeof realLstat);
    expect(await snapshotFile('s', file)).toMatchObject({ size: 2, digest: sha256('v2') });
    expect(calls).toBe(4);
  });
});

describe('resolveBuildPath', () => {
  it('refuses an empty path and a relative one without a stable base', async () => {
    await expect(resolveBuildPath('  ', root, false)).rejects.toThrow('build path is empty');
    await expect(resolveBuildPath('out/a.txt', null, true)).rejects.toThrow(
      'relative build path "out/a.txt" has no stable working directory',
    );
  });

  it('reads a relative path from the base, cleaned', async () => {
    await fs.mkdir(path.join(root, 'src'));
    expect(await resolveBuildPath('src/../src/./a.txt', root, false)).toBe(path.join(root, 'src', 'a.txt'));
    expect(await resolveBuildPath('src/a.txt', root, true)).toBe(path.join(root, 'src', 'a.txt'));
  });

  it("resolves an input's existing ancestors and appends the missing rest", async () => {
    await fs.mkdir(path.join(root, 'real'));
    await fs.symlink(path.join(root, 'real'), path.join(root, 'alias'));
    await fs.writeFile(path.join(root, 'real', 'in.txt'), 'x');
    expect(await resolveBuildPath(path.join(root, 'alias', 'in.txt'), null, false)).toBe(
      path.join(root, 'real', 'in.txt'),
    );
    expect(await resolveBuildPath(path.join(root, 'alias', 'not', 'yet.txt'), null, false)).toBe(
      path.join(root, 'real', 'not', 'yet.txt'),
    );
  });

  it("resolves an output's directory, which must exist", async () => {
    await fs.mkdir(path.join(root, 'real'));
    await fs.symlink(path.join(root, 'real'), path.join(root, 'alias'));
    expect(await resolveBuildPath('alias/out.txt', root, true)).toBe(path.join(root, 'real', 'out.txt'));
    const orphan = path.join(root, 'missing', 'out.txt');
    await expect(resolveBuildPath(orphan, null, true)).rejects.toThrow(
      new RegExp(`^resolve output parent for ${orphan}: ENOENT`),
    );
  });

  it('refuses an output that is a symlink or not a regular file', async () => {
    await fs.writeFile(path.join(root, 'target.txt'), 'x');
    await fs.symlink(path.join(root, 'target.txt'), path.join(root, 'out.txt'));
    await expect(resolveBuildPath('out.txt', root, true)).rejects.toThrow(
      `output path must not be a symlink: ${path.join(root, 'out.txt')}`,
    );
    await fs.mkdir(path.join(root, 'dir.txt'));
    await expect(resolveBuildPath('dir.txt', root, true)).rejects.toThrow(
      `output path must be a regular file: ${path.join(root, 'dir.txt')}`,
    );
    // An input may be anything at resolution; snapshotFile refuses it later.
    expect(await resolveBuildPath('dir.txt', root, false)).toBe(path.join(root, 'dir.txt'));
  });
});

describe('buildPathKey', () => {
  it('gives two spellings of one file the same key', async () => {
    await fs.mkdir(path.join(root, 'real'));
    await fs.symlink(path.join(root, 'real'), path.join(root, 'alias'));
    const key = await buildPathKey(path.join(root, 'real', 'out.txt'));
    expect(key).toBe(path.join(root, 'real', 'out.txt'));
    expect(await buildPathKey(path.join(root, 'alias', 'out.txt'))).toBe(key);
    expect(await buildPathKey(path.join(root, 'alias', '..', 'real', 'x', '..', 'out.txt'))).toBe(key);
  });

  it.runIf(process.platform === 'linux')('keeps case on a file system that does (Linux tmp)', async () => {
    await fs.mkdir(path.join(root, 'Data'));
    expect(await buildPathKey(path.join(root, 'Data', 'Out.TXT'))).toBe(path.join(root, 'Data', 'Out.TXT'));
  });

  it('lower-cases the key where the probe finds case ignored', async () => {
    // A directory whose flipped-case name is the same inode: what a case-insensitive file system shows.
    await fs.mkdir(path.join(root, 'Data'));
    const realLstat = fsPromises().lstat.bind(fsPromises());
    vi.spyOn(fsPromises(), 'lstat').mockImplementation((async (p: string) =>
      realLstat(p === path.join(root, 'data') ? path.join(root, 'Data') : p)) as typeof realLstat);
    expect(await buildPathKey(path.join(root, 'Data', 'Out.TXT'))).toBe(
      path.join(root, 'Data', 'Out.TXT').toLowerCase(),
    );
  });
});
