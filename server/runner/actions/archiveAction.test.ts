import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import yazl from 'yazl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { runArchiveAction } from './archiveAction';
import { budgetFor, MIN_BYTE_BUDGET, type Budget } from './archiveEntries';
import { runAction } from './runAction';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-archive-action-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function archive(op: 'create' | 'extract' | 'list', w: Record<string, unknown>, budget?: Budget) {
  const ctx = testContext({ with: w, workingDir: dir });
  const result = budget
    ? await runArchiveAction(op, ctx, () => budget)
    : await runAction({ kind: 'archive', op, with: w }, ctx);
  const out = ctx.out.text();
  return {
    ...result,
    out,
    json: out ? (JSON.parse(out) as Record<string, unknown>) : null,
    err: ctx.err.text(),
  };
}

/** One ustar header block (and the data padded to 512 bytes). */
function tarEntry(name: string, opts: { type?: string; data?: string; link?: string; mode?: number } = {}) {
  const data = Buffer.from(opts.data ?? '');
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write(`${(opts.mode ?? 0o644).toString(8).padStart(7, '0')}\0`, 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
  h.write(
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
  );
  h.write('        ', 148);
  h.write(opts.type ?? '0', 156);
  h.write(opts.link ?? '', 157, 100, 'utf8');
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([h, data, pad]);
}

function tarFile(...entries: Buffer[]): Buffer {
  return Buffer.concat([...entries, Buffer.alloc(1024)]);
}

/** A zip of the given files; names are written as given, even hostile ones. */
async function zipFile(files: Array<[string, Buffer | string]>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  // yazl refuses hostile names: write a placeholder of the same length, then patch the bytes.
  const patches: Array<[string, string]> = [];
  files.forEach(([name, data], i) => {
    const safe = `${String(i).padStart(name.length, 'x')}`.slice(-name.length).replace(/[./]/g, 'x');
    patches.push([safe, name]);
    zip.addBuffer(Buffer.from(data), safe);
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  let buf = Buffer.concat(chunks);
  for (const [safe, name] of patches) {
    let at = buf.indexOf(safe);
    while (at !== -1) {
      Buffer.from(name).copy(buf, at);
      at = buf.indexOf(safe, at + 1);
    }
  }
  buf = Buffer.from(buf);
  return buf;
}

function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      out.push(rel);
      if (lstatSync(p).isDirectory()) walk(p, rel);
    }
  };
  walk(root, '');
  return out;
}

function seedSource() {
  mkdirSync(join(dir, 'src/sub'), { recursive: true });
  writeFileSync(join(dir, 'src/a.txt'), 'alpha');
  writeFileSync(join(dir, 'src/b.log'), 'bravo');
  writeFileSync(join(dir, 'src/sub/c.txt'), 'charlie');
}

describe('archive round trips', () => {
  for (const ext of ['tar.gz', 'tgz', 'tar', 'zip']) {
    it(`creates, lists and extracts a ${ext} of a directory`, async () => {
      seedSource();
      const created = await archive('create', { source: 'src', destination: `out/pack.${ext}` });
      expect(created.error).toBeNull();
      expect(created.json).toMatchObject({ operation: 'create', source: 'src', filesAdded: 5 });
      expect(created.out).toMatch(/^\{\n {2}"operation": "create",/);

      const listed = await archive('list', { source: `out/pack.${ext}` });
      expect(listed.error).toBeNull();
      const files = (listed.json!.files as Array<{ path: string; isDir: boolean; size: number }>).map((f) => [
        f.path,
        f.isDir,
        f.size,
      ]);
      expect(files).toEqual([
        ['src', true, 0],
        ['src/a.txt', false, 5],
        ['src/b.log', false, 5],
        ['src/sub', true, 0],
        ['src/sub/c.txt', false, 7],
      ]);
      expect(listed.json).toMatchObject({ totalFiles: 5, totalSize: 17 });

      const extracted = await archive('extract', { source: `out/pack.${ext}`, destination: 'dest' });
      expect(extracted.error).toBeNull();
      expect(extracted.json).toMatchObject({ filesExtracted: 3, bytesExtracted: 17, filesSkipped: 0 });
      expect(tree(join(dir, 'dest'))).toEqual(['src', 'src/a.txt', 'src/b.log', 'src/sub', 'src/sub/c.txt']);
      expect(readFileSync(join(dir, 'dest/src/sub/c.txt'), 'utf8')).toBe('charlie');
    });
  }

  it('filters with include and exclude, strips components and flattens paths', async () => {
    seedSource();
    await archive('create', { source: 'src', destination: 'p.zip', exclude: ['**/*.log'] });
    const r = await archive('extract', {
      source: 'p.zip',
      destination: 'd',
      strip_components: 1,
      include: ['**/*.txt'],
    });
    expect(r.error).toBeNull();
    expect(tree(join(dir, 'd'))).toEqual(['a.txt', 'sub', 'sub/c.txt']);
    const flat = await archive('extract', { source: 'p.zip', destination: 'f', preserve_paths: false });
    expect(flat.error).toBeNull();
    // As in Dagu, directory entries are made under their last name too.
    expect(tree(join(dir, 'f'))).toEqual(['a.txt', 'c.txt', 'src', 'sub']);
  });

  it('archives one file under its own name and writes nothing on a dry run', async () => {
    writeFileSync(join(dir, 'one.txt'), 'x');
    const dry = await archive('create', { source: 'one.txt', destination: 'o.tar', dry_run: true });
    expect(dry.json).toMatchObject({ filesAdded: 1, bytesArchived: 1 });
    expect(existsSync(join(dir, 'o.tar'))).toBe(false);
    await archive('create', { source: 'one.txt', destination: 'o.tar', verify_integrity: true });
    const dryExtract = await archive('extract', { source: 'o.tar', destination: 'x', dry_run: true });
    expect(dryExtract.json).toMatchObject({ filesExtracted: 1, bytesExtracted: 1 });
    expect(existsSync(join(dir, 'x'))).toBe(false);
    const listed = await archive('list', { source: 'o.tar', verify_integrity: true });
    expect(listed.json).toMatchObject({ totalFiles: 1, verified: true });
  });

  it('refuses to overwrite unless asked, and replaces a symlink rather than writing through it', async () => {
    writeFileSync(join(dir, 'a.tar'), tarFile(tarEntry('f.txt', { data: 'new' })));
    mkdirSync(join(dir, 'd'));
    writeFileSync(join(dir, 'd/f.txt'), 'old');
    const refused = await archive('extract', { source: 'a.tar', destination: 'd' });
    expect(refused.exitCode).toBe(4);
    expect(refused.error).toContain('exists (overwrite disabled)');
    expect(readFileSync(join(dir, 'd/f.txt'), 'utf8')).toBe('old');

    writeFileSync(join(dir, 'outside.txt'), 'keep');
    await rm(join(dir, 'd/f.txt'));
    symlinkSync(join(dir, 'outside.txt'), join(dir, 'd/f.txt'));
    const r = await archive('extract', { source: 'a.tar', destination: 'd', overwrite: true });
    expect(r.error).toBeNull();
    expect(lstatSync(join(dir, 'd/f.txt')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'd/f.txt'), 'utf8')).toBe('new');
    expect(readFileSync(join(dir, 'outside.txt'), 'utf8')).toBe('keep');
  });
});

describe('hostile archives', () => {
  async function extractInto(archiveName: string, bytes: Buffer, w: Record<string, unknown> = {}) {
    writeFileSync(join(dir, archiveName), bytes);
    mkdirSync(join(dir, 'jail/dest'), { recursive: true });
    return archive('extract', { source: archiveName, destination: 'jail/dest', ...w });
  }

  it('refuses a tar entry climbing out with ..', async () => {
    const r = await extractInto('a.tar', tarFile(tarEntry('../evil.txt', { data: 'x' })));
    expect(r.exitCode).toBe(12);
    expect(r.error).toContain('escapes the destination');
    expect(tree(join(dir, 'jail'))).toEqual(['dest']);
  });

  it('refuses a zip entry climbing out with ..', async () => {
    const r = await extractInto('a.zip', await zipFile([['../../evil.txt', 'x']]));
    expect(r.error).toContain('escapes the destination');
    expect(existsSync(join(dir, 'evil.txt'))).toBe(false);
    expect(tree(join(dir, 'jail'))).toEqual(['dest']);
  });

  it('keeps an absolute entry name inside the destination', async () => {
    const r = await extractInto('a.tar.gz', gzipSync(tarFile(tarEntry('/abs/x.txt', { data: 'x' }))));
    expect(r.error).toBeNull();
    expect(tree(join(dir, 'jail'))).toEqual(['dest', 'dest/abs', 'dest/abs/x.txt']);
  });

  it('refuses symlinks that point outside, absolute or relative', async () => {
    const abs = await extractInto('a.tar', tarFile(tarEntry('l', { type: '2', link: '/etc' })));
    expect(abs.error).toContain('absolute path');
    const rel = await extractInto('b.tar', tarFile(tarEntry('sub/l', { type: '2', link: '../../x' })));
    expect(rel.error).toContain('pointing outside the destination');
    expect(tree(join(dir, 'jail'))).toEqual(['dest', 'dest/sub']);
  });

  it('keeps a symlink inside the destination but never writes through one', async () => {
    const r = await extractInto(
      'a.tar',
      tarFile(
        tarEntry('d/', { type: '5', mode: 0o755 }),
        tarEntry('l', { type: '2', link: 'd' }),
        tarEntry('l/x.txt', { data: 'x' }),
      ),
    );
    expect(readlinkSync(join(dir, 'jail/dest/l'))).toBe('d');
    expect(r.error).toContain('refusing to write through the symlink "l"');
    expect(existsSync(join(dir, 'jail/dest/d/x.txt'))).toBe(false);
  });

  it('does not follow a symlink already in the destination', async () => {
    mkdirSync(join(dir, 'elsewhere'));
    mkdirSync(join(dir, 'jail/dest'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'jail/dest/sub'));
    const r = await extractInto('a.tar', tarFile(tarEntry('sub/x.txt', { data: 'x' })));
    expect(r.exitCode).toBe(4);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
  });

  it('allows a hard link only to a file the extraction wrote', async () => {
    const out = await extractInto('a.tar', tarFile(tarEntry('h', { type: '1', link: '/etc/passwd' })));
    expect(out.error).toContain('hard link');
    const ok = await extractInto(
      'b.tar',
      tarFile(tarEntry('f.txt', { data: 'same' }), tarEntry('g.txt', { type: '1', link: 'f.txt' })),
      { overwrite: true },
    );
    expect(ok.error).toBeNull();
    expect(readFileSync(join(dir, 'jail/dest/g.txt'), 'utf8')).toBe('same');
  });

  it('stops a compression bomb at the byte budget', async () => {
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const bomb = await zipFile([
      ['a.bin', zeros],
      ['b.bin', zeros],
    ]);
    expect(bomb.length).toBeLessThan(100_000);
    writeFileSync(join(dir, 'bomb.zip'), bomb);
    const r = await archive(
      'extract',
      { source: 'bomb.zip', destination: 'd' },
      { maxBytes: 5_000_000, maxEntries: 10 },
    );
    expect(r.error).toContain('compression bomb');
    const written = readdirSync(join(dir, 'd')).reduce(
      (n, f) => n + readFileSync(join(dir, 'd', f)).length,
      0,
    );
    expect(written).toBeLessThanOrEqual(5_000_000);
    const many = await archive('list', { source: 'bomb.zip' }, { maxBytes: 1e9, maxEntries: 1 });
    expect(many.error).toContain('more than 1 entries');
  });

  it('allows 200 times the archive size, at least 1 GiB', () => {
    expect(budgetFor(1000).maxBytes).toBe(MIN_BYTE_BUDGET);
    expect(budgetFor(100 * 1024 ** 3).maxBytes).toBe(200 * 100 * 1024 ** 3);
  });

  it('fails on a corrupt or truncated archive', async () => {
    const good = gzipSync(tarFile(tarEntry('f.txt', { data: 'x'.repeat(2000) })));
    const r = await extractInto('t.tar.gz', good.subarray(0, good.length - 30));
    expect(r.error).toMatch(/corrupted archive|unexpected end/i);
    const z = await extractInto('t.zip', Buffer.from('PK\x03\x04garbage'));
    expect(z.exitCode).toBe(12);
  });

  it('collects entry errors with continue_on_error', async () => {
    const r = await extractInto(
      'a.tar',
      tarFile(tarEntry('../evil', { data: 'x' }), tarEntry('ok.txt', { data: 'y' })),
      { continue_on_error: true },
    );
    expect(r.error).toBeNull();
    expect(r.json).toMatchObject({ filesExtracted: 1 });
    expect(r.json!.errors).toHaveLength(1);
    expect(r.err).toContain('archive step warning: continuing after error');
    expect(tree(join(dir, 'jail'))).toEqual(['dest', 'dest/ok.txt']);
  });
});

describe('archive errors', () => {
  it('names a missing source, a missing destination and unsupported formats', async () => {
    expect(await archive('list', { source: 'nope.zip' })).toMatchObject({ exitCode: 3 });
    writeFileSync(join(dir, 'f'), 'x');
    expect((await archive('create', { source: 'f' })).error).toContain('destination is required for create');
    const seven = await archive('create', { source: 'f', destination: 'f.7z' });
    expect(seven.error).toBe(
      'archive format "7z" is not supported by this product (supported: zip, tar, tar.gz/tgz)',
    );
    writeFileSync(join(dir, 'x.bin'), Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 1, 2]));
    const xz = await archive('list', { source: 'x.bin' });
    expect(xz).toMatchObject({ exitCode: 5 });
    expect(xz.error).toContain('"xz" is not supported');
    expect((await archive('list', { source: 'f', format: 'rar' })).error).toContain('"rar" is not supported');
    expect((await archive('list', { source: 'f', include: ['[a'] })).error).toContain('invalid glob pattern');
  });

  it('stops promptly when the step is stopped', async () => {
    writeFileSync(join(dir, 'big.bin'), Buffer.alloc(64 * 1024 * 1024, 7));
    await archive('create', { source: 'big.bin', destination: 'big.tar' });
    const controller = new AbortController();
    const ctx = testContext({
      with: { source: 'big.tar', destination: 'd' },
      workingDir: dir,
      signal: controller.signal,
    });
    const started = Date.now();
    const pending = runArchiveAction('extract', ctx);
    setTimeout(() => controller.abort(), 5);
    const r = await pending;
    expect(r.error).toBe('archive extract: stopped');
    expect(r.exitCode).toBe(14);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
