import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PRESOLVED_SECRET_PREFIX, resolveSecrets } from './secrets';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dagu-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('reads env secrets from the DAG env, then a value handed down, then the host', async () => {
  const r = await resolveSecrets(
    [
      { name: 'A', provider: 'env', key: 'K1' },
      { name: 'B', provider: 'env', key: 'K2' },
      { name: 'C', provider: 'env', key: 'K3' },
    ],
    {
      dagEnv: { K1: 'from-dag' },
      hostEnv: { K1: 'host1', K2: 'host2', [`${PRESOLVED_SECRET_PREFIX}K2`]: 'handed', K3: 'host3' },
      baseDirs: [],
    },
  );
  expect(r).toEqual({
    ok: true,
    values: [
      ['A', 'from-dag'],
      ['B', 'handed'],
      ['C', 'host3'],
    ],
  });
});

it('reads a file whole, a relative path from the first base directory that has it', async () => {
  mkdirSync(path.join(dir, 'b'));
  writeFileSync(path.join(dir, 'b', 'tok'), 'line1\nline2\n');
  const r = await resolveSecrets([{ name: 'T', provider: 'file', key: 'tok' }], {
    dagEnv: {},
    hostEnv: {},
    baseDirs: [path.join(dir, 'a'), path.join(dir, 'b')],
  });
  expect(r).toEqual({ ok: true, values: [['T', 'line1\nline2\n']] });
});

it('says which secret failed and why', async () => {
  mkdirSync(path.join(dir, 'adir'));
  writeFileSync(path.join(dir, 'huge'), Buffer.alloc(1024 * 1024 + 1));
  const one = (key: string, provider: 'env' | 'file' = 'file') =>
    resolveSecrets([{ name: 'S', provider, key }], { dagEnv: {}, hostEnv: {}, baseDirs: [dir] });
  expect(await one('NOPE', 'env')).toEqual({
    ok: false,
    error:
      'failed to resolve secrets: failed to resolve secret "S" from provider "env": environment variable "NOPE" is not set',
  });
  expect(await one(path.join(dir, 'missing'))).toMatchObject({
    error: expect.stringContaining('secret file not found'),
  });
  expect(await one('adir')).toMatchObject({ error: expect.stringContaining('is a directory, not a file') });
  expect(await one('huge')).toMatchObject({ error: expect.stringContaining('larger than 1 MiB') });
});
