import {
  closeSync,
  existsSync,
  openSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { runAction } from './runAction';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-file-action-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(op: string, w: Record<string, unknown>, env: Record<string, string> = {}) {
  const ctx = testContext({ with: w, workingDir: dir, env });
  const result = await runAction({ kind: 'file', op, with: w }, ctx);
  return { ...result, out: ctx.out.text() };
}

/** The printed JSON line, parsed; it must be one compact line. */
function json(out: string): Record<string, unknown> {
  expect(out.endsWith('\n')).toBe(true);
  expect(out.trimEnd()).not.toContain('\n');
  return JSON.parse(out) as Record<string, unknown>;
}

const MOD_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?(Z|[+-]\d\d:\d\d)$/;

describe('file.write', () => {
  it('creates the file under the working directory and prints what it wrote', async () => {
    const r = await file('write', { path: 'out/data.txt', content: 'hello', create_dirs: true });
    expect(r).toMatchObject({ exitCode: 0, error: null });
    expect(r.out).toBe(
      `{"operation":"write","path":"${join(dir, 'out/data.txt')}","bytes":5,"created":true}\n`,
    );
    expect(readFileSync(join(dir, 'out/data.txt'), 'utf8')).toBe('hello');
    expect(statSync(join(dir, 'out/data.txt')).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'out'))).toEqual(['data.txt']); // no temporary file left behind
  });

  it('refuses to replace an existing file unless overwrite is set', async () => {
    writeFileSync(join(dir, 'existing.txt'), 'old');
    const r = await file('write', { path: 'existing.txt', content: 'new' });
    expect(r.exitCode).toBe(1);
    expect(r.error).toBe(
      `file write ${join(dir, 'existing.txt')}: the file already exists (set overwrite: true to replace it)`,
    );
    expect(readFileSync(join(dir, 'existing.txt'), 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['existing.txt']);
  });

  it('replaces an existing file in one rename with overwrite, giving it the requested mode', async () => {
    writeFileSync(join(dir, 'existing.txt'), 'old', { mode: 0o644 });
    const r = await file('write', { path: 'existing.txt', content: 'new', overwrite: true, mode: '0640' });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'existing.txt'), 'utf8')).toBe('new');
    expect(statSync(join(dir, 'existing.txt')).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['existing.txt']);
  });

  it('writes in place when atomic is off', async () => {
    writeFileSync(join(dir, 'existing.txt'), 'old and long');
    const r = await file('write', {
      path: 'existing.txt',
      content: 'new',
      overwrite: 'true',
      atomic: 'false',
    });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'existing.txt'), 'utf8')).toBe('new');
  });

  it('writes empty content, which counts as given', async () => {
    const r = await file('write', { path: 'empty.txt', content: '' });
    expect(r.out).toBe(`{"operation":"write","path":"${join(dir, 'empty.txt')}","created":true}\n`);
    expect(readFileSync(join(dir, 'empty.txt'), 'utf8')).toBe('');
  });

  it('fails without create_dirs when the parent directory is missing', async () => {
    const r = await file('write', { path: 'missing/data.txt', content: 'x' });
    expect(r.exitCode).toBe(1);
    expect(r.error).toContain('no such file or directory');
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('only reports what it would do in a dry run', async () => {
    const r = await file('write', { path: 'dry.txt', content: 'abc', dry_run: true });
    expect(r.out).toBe(
      `{"operation":"write","path":"${join(dir, 'dry.txt')}","bytes":3,"dryRun":true,"created":false}\n`,
    );
    expect(existsSync(join(dir, 'dry.txt'))).toBe(false);
  });

  it('expands a leading ~ to the home directory', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const r = await file('write', { path: '~/note.txt', content: 'hi' }, { HOME: home });
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(home, 'note.txt'), 'utf8')).toBe('hi');
  });
});

describe('file.read', () => {
  it('prints the file byte for byte by default', async () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x0a, 0x41]);
    writeFileSync(join(dir, 'bin'), bytes);
    const logPath = join(dir, 'step.out');
    const fd = openSync(logPath, 'a');
    try {
      const ctx = testContext({ with: { path: 'bin' }, workingDir: dir, stdout: fd });
      expect(await runAction({ kind: 'file', op: 'read', with: ctx.with }, ctx)).toEqual({
        exitCode: 0,
        error: null,
      });
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(logPath).equals(bytes)).toBe(true);
  });

  it('prints the content inside Go-style JSON with format: json', async () => {
    writeFileSync(join(dir, 'page.html'), '<b>&</b>\n', { mode: 0o644 });
    const r = await file('read', { path: 'page.html', format: 'json' });
    const line = r.out.replace(/"modTime":"[^"]*"/, '"modTime":"T"');
    expect(line).toBe(
      `{"operation":"read","path":"${join(dir, 'page.html')}","type":"file","size":9,"mode":"-rw-r--r--",` +
        `"modTime":"T","bytes":9,"content":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e\\n"}\n`,
    );
    expect(json(r.out).modTime).toMatch(MOD_TIME);
  });

  it('refuses a directory, a missing file and a file over max_bytes', async () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'big.txt'), '0123456789');
    expect((await file('read', { path: 'sub' })).error).toBe(
      `file read ${join(dir, 'sub')}: cannot read a directory`,
    );
    expect((await file('read', { path: 'nope' })).error).toBe(
      `file read ${join(dir, 'nope')}: stat ${join(dir, 'nope')}: no such file or directory`,
    );
    const over = await file('read', { path: 'big.txt', max_bytes: 9 });
    expect(over.error).toBe(`file read ${join(dir, 'big.txt')}: file size 10 exceeds max_bytes 9`);
    expect(over.out).toBe('');
    expect((await file('read', { path: 'big.txt', max_bytes: '10' })).out).toBe('0123456789');
  });
});

describe('file.stat', () => {
  it('describes a file, and a symlink as a link unless follow_symlinks is set', async () => {
    writeFileSync(join(dir, 'a.txt'), 'hello', { mode: 0o600 });
    symlinkSync('a.txt', join(dir, 'link'));
    const plain = json((await file('stat', { path: 'a.txt' })).out);
    expect(plain).toMatchObject({
      operation: 'stat',
      exists: true,
      type: 'file',
      size: 5,
      mode: '-rw-------',
    });
    expect(Object.keys(plain)).toEqual(['operation', 'path', 'exists', 'type', 'size', 'mode', 'modTime']);
    expect(plain.modTime).toMatch(MOD_TIME);
    expect(json((await file('stat', { path: 'link' })).out)).toMatchObject({
      type: 'symlink',
      mode: 'Lrwxrwxrwx',
    });
    expect(json((await file('stat', { path: 'link', follow_symlinks: true })).out)).toMatchObject({
      type: 'file',
    });
  });

  it('leaves out a zero size, as Go omits empty fields', async () => {
    writeFileSync(join(dir, 'empty'), '');
    expect(json((await file('stat', { path: 'empty' })).out)).not.toHaveProperty('size');
  });

  it('reports a missing path as an error, or as exists: false with missing_ok', async () => {
    const missing = await file('stat', { path: 'nope' });
    expect(missing.error).toBe(
      `file stat ${join(dir, 'nope')}: lstat ${join(dir, 'nope')}: no such file or directory`,
    );
    const ok = await file('stat', { path: 'nope', missing_ok: true });
    expect(ok.out).toBe(`{"operation":"stat","path":"${join(dir, 'nope')}","exists":false}\n`);
  });
});

describe('file.copy', () => {
  it('copies a file, keeping its permissions, and never over an existing one without overwrite', async () => {
    writeFileSync(join(dir, 'a.txt'), 'alpha', { mode: 0o640 });
    const r = await file('copy', { source: 'a.txt', destination: 'stage/a.txt', create_dirs: true });
    expect(r.out).toBe(
      `{"operation":"copy","source":"${join(dir, 'a.txt')}","destination":"${join(dir, 'stage/a.txt')}",` +
        `"files":1,"bytes":5,"copied":true}\n`,
    );
    expect(readFileSync(join(dir, 'stage/a.txt'), 'utf8')).toBe('alpha');
    expect(statSync(join(dir, 'stage/a.txt')).mode & 0o777).toBe(0o640);

    writeFileSync(join(dir, 'a.txt'), 'beta');
    const again = await file('copy', { source: 'a.txt', destination: 'stage/a.txt' });
    expect(again.error).toContain('destination exists');
    expect(readFileSync(join(dir, 'stage/a.txt'), 'utf8')).toBe('alpha');
    expect(
      (await file('copy', { source: 'a.txt', destination: 'stage/a.txt', overwrite: true })).exitCode,
    ).toBe(0);
    expect(readFileSync(join(dir, 'stage/a.txt'), 'utf8')).toBe('beta');
    expect(readdirSync(join(dir, 'stage'))).toEqual(['a.txt']);
  });

  it('copies a directory tree only with recursive, links as links, and counts what it copied', async () => {
    mkdirSync(join(dir, 'src/sub'), { recursive: true });
    writeFileSync(join(dir, 'src/one.txt'), '1');
    writeFileSync(join(dir, 'src/sub/two.txt'), '22');
    symlinkSync('/etc/passwd', join(dir, 'src/outside'));
    const refused = await file('copy', { source: 'src', destination: 'dst' });
    expect(refused.error).toBe(
      `file copy ${join(dir, 'src')} to ${join(dir, 'dst')}: recursive is required to copy a directory`,
    );
    expect(existsSync(join(dir, 'dst'))).toBe(false);

    const r = await file('copy', { source: 'src', destination: 'dst', recursive: true });
    expect(json(r.out)).toMatchObject({ files: 3, directories: 1, bytes: 3, copied: true });
    expect(readFileSync(join(dir, 'dst/sub/two.txt'), 'utf8')).toBe('22');
    expect(lstatSync(join(dir, 'dst/outside')).isSymbolicLink()).toBe(true);
  });

  it('refuses a destination inside the source, or the source itself', async () => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/data.txt'), 'data');
    const inside = await file('copy', { source: 'src', destination: 'src/nested', recursive: true });
    expect(inside.error).toContain('destination must not be inside source');
    expect(existsSync(join(dir, 'src/nested'))).toBe(false);
    const same = await file('copy', {
      source: 'src/data.txt',
      destination: './src/../src/data.txt',
      overwrite: true,
    });
    expect(same.error).toContain('source and destination must differ');
    expect(readFileSync(join(dir, 'src/data.txt'), 'utf8')).toBe('data');
  });

  it('copies the file a symlink points at with follow_symlinks', async () => {
    writeFileSync(join(dir, 'target.txt'), 'real');
    symlinkSync('target.txt', join(dir, 'link'));
    await file('copy', { source: 'link', destination: 'copied', follow_symlinks: true });
    expect(lstatSync(join(dir, 'copied')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'copied'), 'utf8')).toBe('real');
  });
});

describe('file.move', () => {
  it('renames, refusing an existing destination unless overwrite is set', async () => {
    writeFileSync(join(dir, 'a.txt'), 'source');
    writeFileSync(join(dir, 'b.txt'), 'destination');
    const refused = await file('move', { source: 'a.txt', destination: 'b.txt' });
    expect(refused.error).toBe(
      `file move ${join(dir, 'a.txt')} to ${join(dir, 'b.txt')}: destination exists (set overwrite: true to replace it)`,
    );
    const r = await file('move', { source: 'a.txt', destination: 'b.txt', overwrite: true });
    expect(r.out).toBe(
      `{"operation":"move","source":"${join(dir, 'a.txt')}","destination":"${join(dir, 'b.txt')}","moved":true}\n`,
    );
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('source');
  });

  it('creates missing parents with create_dirs and fails on a missing source', async () => {
    writeFileSync(join(dir, 'a.txt'), 'x');
    expect(
      (await file('move', { source: 'a.txt', destination: 'deep/er/a.txt', create_dirs: true })).exitCode,
    ).toBe(0);
    expect(readFileSync(join(dir, 'deep/er/a.txt'), 'utf8')).toBe('x');
    const missing = await file('move', { source: 'a.txt', destination: 'b.txt' });
    expect(missing.error).toContain(': stat source: lstat ');
  });
});

describe('file.delete', () => {
  it('removes a file, and a directory only with recursive', async () => {
    writeFileSync(join(dir, 'a.txt'), 'x');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub/b.txt'), 'y');
    expect((await file('delete', { path: 'a.txt' })).out).toBe(
      `{"operation":"delete","path":"${join(dir, 'a.txt')}","deleted":true}\n`,
    );
    const refused = await file('delete', { path: 'sub' });
    expect(refused.error).toBe(
      `file delete ${join(dir, 'sub')}: recursive is required to delete a directory`,
    );
    expect(existsSync(join(dir, 'sub/b.txt'))).toBe(true);
    expect((await file('delete', { path: 'sub', recursive: true })).exitCode).toBe(0);
    expect(existsSync(join(dir, 'sub'))).toBe(false);
  });

  it('removes a symlink to a directory without touching what it points at', async () => {
    mkdirSync(join(dir, 'keep'));
    writeFileSync(join(dir, 'keep/data'), 'd');
    symlinkSync('keep', join(dir, 'link'));
    expect((await file('delete', { path: 'link', recursive: true })).exitCode).toBe(0);
    expect(existsSync(join(dir, 'link'))).toBe(false);
    expect(readFileSync(join(dir, 'keep/data'), 'utf8')).toBe('d');
  });

  it('never deletes the file-system root', async () => {
    expect((await file('delete', { path: '/', recursive: true })).error).toBe(
      'file delete /: refusing to delete filesystem root',
    );
    expect((await file('delete', { path: '/../..', recursive: true, dry_run: true })).exitCode).toBe(1);
  });

  it('reports a missing path, or deleted: false with missing_ok, and changes nothing in a dry run', async () => {
    expect((await file('delete', { path: 'nope' })).error).toContain('no such file or directory');
    expect((await file('delete', { path: 'nope', missing_ok: true })).out).toBe(
      `{"operation":"delete","path":"${join(dir, 'nope')}","deleted":false}\n`,
    );
    writeFileSync(join(dir, 'a.txt'), 'x');
    expect(json((await file('delete', { path: 'a.txt', dry_run: true })).out)).toMatchObject({
      dryRun: true,
      deleted: false,
    });
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
  });
});

describe('file.mkdir', () => {
  it('creates missing parents, succeeds when the directory exists, and applies mode', async () => {
    const r = await file('mkdir', { path: 'a/b/c', mode: '0o700' });
    expect(r.out).toBe(`{"operation":"mkdir","path":"${join(dir, 'a/b/c')}","created":true}\n`);
    expect(statSync(join(dir, 'a/b/c')).mode & 0o777).toBe(0o700);
    expect((await file('mkdir', { path: 'a/b/c' })).exitCode).toBe(0);
  });

  it('fails when a file is in the way', async () => {
    writeFileSync(join(dir, 'f'), 'x');
    expect((await file('mkdir', { path: 'f' })).error).toBe(
      `file mkdir ${join(dir, 'f')}: it exists and is not a directory`,
    );
  });
});

describe('file.list', () => {
  beforeEach(() => {
    mkdirSync(join(dir, 'input/deep'), { recursive: true });
    writeFileSync(join(dir, 'input/a.txt'), 'alpha');
    writeFileSync(join(dir, 'input/b.log'), 'beta');
    writeFileSync(join(dir, 'input/deep/c.txt'), 'c');
    writeFileSync(join(dir, 'input/.hidden.txt'), 'h');
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'elsewhere/secret.txt'), 's');
    symlinkSync('../elsewhere', join(dir, 'input/jump'));
  });

  it('lists the files directly inside a directory, sorted, with their details', async () => {
    const r = await file('list', { path: 'input' });
    const out = json(r.out);
    expect(out).toMatchObject({ operation: 'list', path: join(dir, 'input'), files: 3 });
    const entries = out.entries as Array<Record<string, unknown>>;
    expect(entries.map((e) => e.path)).toEqual(['.hidden.txt', 'a.txt', 'b.log', 'jump']);
    expect(Object.keys(entries[1]!)).toEqual([
      'path',
      'type',
      'size',
      'mode',
      'modTime',
      'isDir',
      'isRegular',
      'isSymlink',
    ]);
    expect(entries[1]).toMatchObject({
      type: 'file',
      size: 5,
      isDir: false,
      isRegular: true,
      isSymlink: false,
    });
    expect(entries[3]).toMatchObject({ type: 'symlink', isSymlink: true });
  });

  it('walks subdirectories with recursive, matches the pattern on relative paths, and never follows links', async () => {
    const r = await file('list', { path: '.', recursive: true, pattern: '**/*.txt' });
    const paths = (json(r.out).entries as Array<{ path: string }>).map((e) => e.path);
    expect(paths).toEqual(['elsewhere/secret.txt', 'input/.hidden.txt', 'input/a.txt', 'input/deep/c.txt']);
    const inside = await file('list', { path: 'input', recursive: true, pattern: '**/*.txt' });
    expect((json(inside.out).entries as Array<{ path: string }>).map((e) => e.path)).toEqual([
      '.hidden.txt',
      'a.txt',
      'deep/c.txt',
    ]);
  });

  it('includes directories with include_dirs, and `deep/**` matches the directory itself', async () => {
    const r = await file('list', { path: 'input', recursive: true, include_dirs: true, pattern: 'deep/**' });
    const entries = json(r.out).entries as Array<{ path: string; type: string }>;
    expect(entries.map((e) => [e.path, e.type])).toEqual([
      ['deep', 'directory'],
      ['deep/c.txt', 'file'],
    ]);
    expect(json(r.out).files).toBe(1);
  });

  it('prints no entries key when nothing matches, and refuses a path that is not a directory', async () => {
    expect((await file('list', { path: 'input', pattern: '*.none' })).out).toBe(
      `{"operation":"list","path":"${join(dir, 'input')}"}\n`,
    );
    expect((await file('list', { path: 'input/a.txt' })).error).toBe(
      `file list ${join(dir, 'input/a.txt')}: path must be a directory`,
    );
  });
});

describe('file action settings', () => {
  it.each([
    ['write', { path: 'x', contnt: 'a' }, 'file: with.contnt is not a setting of file actions'],
    ['chmod', { path: 'x' }, "file: unsupported operation 'chmod'"],
    ['read', {}, 'file: with.path is required for read'],
    ['write', { path: 'x' }, 'file: with.content is required for write'],
    ['write', { path: 'x', content: 5 }, 'file: with.content: 5 is not text'],
    ['copy', { source: 'a' }, 'file: with.destination is required for copy'],
    ['move', { destination: 'a' }, 'file: with.source is required for move'],
    ['write', { path: 'x', content: '', mode: '0999' }, "file: with.mode: '0999' is not an octal mode"],
    ['read', { path: 'x', format: 'yaml' }, "file: with.format: 'yaml' is not 'raw' or 'json'"],
    ['read', { path: 'x', max_bytes: -1 }, 'file: with.max_bytes: -1 is not a size of 0 or more bytes'],
    ['list', { path: '.', pattern: 'a[' }, "file: with.pattern: 'a[' is not a valid glob pattern"],
    ['delete', { path: 'x', recursive: 'maybe' }, "file: with.recursive: 'maybe' is not true or false"],
  ])('file.%s with %j is refused before anything is touched', async (op, w, message) => {
    const r = await file(op, w);
    expect(r.exitCode).toBe(1);
    expect(r.error).toContain(message);
    expect(r.out).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  });
});
