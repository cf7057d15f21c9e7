import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { runArtifactAction, type ArtifactOp } from './artifactAction';

let base: string;
let dir: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'artifact-action-'));
  dir = join(base, 'artifacts');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function run(op: ArtifactOp, w: Record<string, unknown>) {
  const ctx = testContext({ with: w, env: { DAG_RUN_ARTIFACTS_DIR: dir } });
  const result = await runArtifactAction(op, ctx);
  return { ...result, out: ctx.out.text() };
}

describe('artifact.write', () => {
  it('creates the file (owner-only, parents made) and prints what it wrote', async () => {
    const r = await run('write', { path: 'reports/a.md', content: 'hi <b>' });
    expect(r.error).toBeNull();
    expect(r.out).toBe('{"operation":"write","path":"reports/a.md","bytes":6,"created":true}\n');
    expect(readFileSync(join(dir, 'reports/a.md'), 'utf8')).toBe('hi <b>');
    expect(statSync(join(dir, 'reports/a.md')).mode & 0o777).toBe(0o600);
  });

  it('refuses an existing file unless overwrite, and then reports created false', async () => {
    await run('write', { path: 'a.txt', content: 'one' });
    const again = await run('write', { path: 'a.txt', content: 'two' });
    expect(again.exitCode).toBe(1);
    expect(again.error).toBe('artifact: artifact write a.txt: file exists');
    const over = await run('write', { path: 'a.txt', content: 'two', overwrite: true, mode: '0644' });
    expect(over.out).toBe('{"operation":"write","path":"a.txt","bytes":3,"created":false}\n');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two');
    expect(statSync(join(dir, 'a.txt')).mode & 0o777).toBe(0o644);
  });

  it('prints no bytes for empty content, as Go leaves a zero out', async () => {
    expect((await run('write', { path: 'e', content: '' })).out).toBe(
      '{"operation":"write","path":"e","created":true}\n',
    );
  });

  it('refuses paths that leave the directory, also through a symlink', async () => {
    for (const path of ['../x', '/etc/x', 'a/../../x']) {
      const r = await run('write', { path, content: 'x' });
      expect(r.exitCode, path).toBe(1);
      expect(r.error, path).toMatch(/^artifact: artifact path must/);
    }
    mkdirSync(dir, { recursive: true });
    mkdirSync(join(base, 'outside'));
    symlinkSync(join(base, 'outside'), join(dir, 'link'));
    const r = await run('write', { path: 'link/x.txt', content: 'x' });
    expect(r.error).toBe('artifact: artifact path "link/x.txt" escapes the artifact directory');
  });

  it('fails clearly without an artifacts directory', async () => {
    const ctx = testContext({ with: { path: 'a', content: 'x' } });
    expect((await runArtifactAction('write', ctx)).error).toBe(
      'artifact: DAG_RUN_ARTIFACTS_DIR is not set; enable artifacts for this DAG',
    );
  });
});

describe('artifact.read', () => {
  beforeEach(() => {
    mkdirSync(join(dir, 'd'), { recursive: true });
    writeFileSync(join(dir, 'd', 'f.txt'), 'content & more');
  });

  it('prints the file as it is, or its facts and content as JSON', async () => {
    expect((await run('read', { path: 'd/f.txt' })).out).toBe('content & more');
    const json = JSON.parse((await run('read', { path: 'd/f.txt', format: 'json' })).out);
    expect(json).toMatchObject({
      operation: 'read',
      path: 'd/f.txt',
      exists: true,
      type: 'file',
      size: 14,
      bytes: 14,
      content: 'content & more',
    });
    expect(Object.keys(json)).toEqual([
      'operation',
      'path',
      'exists',
      'type',
      'size',
      'mode',
      'modTime',
      'bytes',
      'content',
    ]);
  });

  it('refuses a directory, a missing file and a file over max_bytes', async () => {
    expect((await run('read', { path: 'd' })).error).toBe(
      'artifact: artifact read d: cannot read a directory',
    );
    expect((await run('read', { path: 'nope' })).error).toBe(
      'artifact: artifact read nope: no such file or directory',
    );
    expect((await run('read', { path: 'd/f.txt', max_bytes: 4 })).error).toBe(
      'artifact: artifact read d/f.txt: file size 14 exceeds max_bytes 4',
    );
  });
});

describe('artifact.list', () => {
  beforeEach(() => {
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, 'top.md'), '1');
    writeFileSync(join(dir, 'a', 'x.txt'), '22');
    writeFileSync(join(dir, 'a', 'b', 'y.md'), '333');
  });

  const paths = (out: string) =>
    (JSON.parse(out) as { entries?: { path: string }[] }).entries?.map((e) => e.path) ?? [];

  it('lists one level of files by default, paths relative to the artifacts directory', async () => {
    const r = await run('list', {});
    expect(paths(r.out)).toEqual(['top.md']);
    expect(JSON.parse(r.out)).toMatchObject({ operation: 'list', path: '.', files: 1 });
    expect(paths((await run('list', { path: 'a' })).out)).toEqual(['a/x.txt']);
  });

  it('recurses, includes folders and filters by pattern when asked', async () => {
    expect(paths((await run('list', { recursive: true })).out)).toEqual(['a/b/y.md', 'a/x.txt', 'top.md']);
    expect(paths((await run('list', { recursive: true, include_dirs: true })).out)).toEqual([
      'a',
      'a/b',
      'a/b/y.md',
      'a/x.txt',
      'top.md',
    ]);
    expect(paths((await run('list', { recursive: true, pattern: '**/*.md' })).out)).toEqual([
      'a/b/y.md',
      'top.md',
    ]);
  });

  it('leaves entries and files out when nothing matches, and refuses a file as the path', async () => {
    expect((await run('list', { pattern: '*.none' })).out).toBe('{"operation":"list","path":"."}\n');
    expect((await run('list', { path: 'top.md' })).error).toBe(
      'artifact: artifact list top.md: path must be a directory',
    );
  });
});
