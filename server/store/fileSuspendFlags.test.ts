import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSuspendFlags } from './fileSuspendFlags';
import type { CorruptFileReport } from './fsutil';
import { describeSuspendFlagsContract } from './suspendFlags.contract';

describeSuspendFlagsContract('FileSuspendFlags', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-suspend-'));
  return {
    store: new FileSuspendFlags(path.join(dir, 'suspend')),
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
});

describe('FileSuspendFlags on disk', () => {
  let root: string;
  let dir: string;
  let reports: CorruptFileReport[];
  let flags: FileSuspendFlags;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-suspend-'));
    dir = path.join(root, 'suspend');
    reports = [];
    flags = new FileSuspendFlags(dir, (r) => reports.push(r));
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it("reads Dagu's empty flag file as a suspension that does not say when", async () => {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'etl.suspend'), '');
    expect(await flags.get('etl')).toEqual({ dag: 'etl', suspended_at: null, by: null });
    expect(reports).toEqual([]);
  });

  it('keeps a DAG with a corrupt flag suspended and reports the file once', async () => {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'etl.suspend'), '{"suspended_at": ');
    expect(await flags.get('etl')).toEqual({ dag: 'etl', suspended_at: null, by: null });
    expect(await flags.names()).toEqual(new Set(['etl']));
    await flags.list();
    expect(reports).toEqual([
      { path: path.join(dir, 'etl.suspend'), error: 'suspend flag is not JSON; the DAG stays suspended' },
    ]);
  });

  it('writes one flag file with no temp file left, and ignores entries that are not flags', async () => {
    await flags.suspend({ dag: 'etl', suspended_at: '2026-11-30T01:15:00.000Z', by: 'cli' });
    await fs.writeFile(path.join(dir, 'notes.txt'), 'x');
    await fs.writeFile(path.join(dir, '..suspend'), '');
    expect((await fs.readdir(dir)).sort()).toEqual(['..suspend', 'etl.suspend', 'notes.txt']);
    expect(JSON.parse(await fs.readFile(path.join(dir, 'etl.suspend'), 'utf8'))).toEqual({
      suspended_at: '2026-11-30T01:15:00.000Z',
      by: 'cli',
    });
    expect(await flags.names()).toEqual(new Set(['etl']));
  });

  it('throws a storage error rather than reading it as "not suspended"', async () => {
    await fs.symlink(dir, dir); // a loop: every read of it fails with ELOOP
    await expect(flags.names()).rejects.toThrow(/ELOOP/);
    await expect(flags.get('etl')).rejects.toThrow(/ELOOP/);
  });
});
