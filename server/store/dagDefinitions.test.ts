// The DagDefinitions contract on the file and memory forms, and what the file form adds: it reads a DAGs
// directory as the loader does, and writes it as the console's editor always has.

import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DAG_FILE_BYTES } from './dagCatalog';
import { describeDagDefinitionsContract } from './dagDefinitions.contract';
import { dagVersion } from './dagFiles';
import { FileDagDefinitions } from './fileDagDefinitions';
import { MemoryDagDefinitions } from './memoryDagDefinitions';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'dagu-dagdefs-'));
}

describeDagDefinitionsContract(
  'FileDagDefinitions',
  async () => {
    const dir = tempDir();
    return {
      store: new FileDagDefinitions(path.join(dir, 'dags')),
      cleanup: async () => rmSync(dir, { recursive: true }),
    };
  },
  { recordsWriter: false },
);

describeDagDefinitionsContract('MemoryDagDefinitions', async () => ({ store: new MemoryDagDefinitions() }), {
  recordsWriter: true,
});

describe('FileDagDefinitions on a DAGs directory', () => {
  const A = 'steps:\n  - name: a\n    run: echo a\n';

  it('sees the files the loader sees: .yaml before .yml, no hidden, temp, oversized or unnamed ones', async () => {
    const dir = tempDir();
    try {
      writeFileSync(path.join(dir, 'etl.yaml'), A);
      writeFileSync(path.join(dir, 'etl.yml'), 'shadowed');
      writeFileSync(path.join(dir, 'report.yml'), A);
      writeFileSync(path.join(dir, '.hidden.yaml'), A);
      writeFileSync(path.join(dir, '.etl.yaml.tmp-1-abc'), A);
      writeFileSync(path.join(dir, 'has space.yaml'), A);
      writeFileSync(path.join(dir, 'notes.txt'), A);
      writeFileSync(path.join(dir, 'huge.yaml'), 'x'.repeat(MAX_DAG_FILE_BYTES + 1));
      const list = await new FileDagDefinitions(dir).list();
      expect(list.map((d) => [d.name, d.fileName, d.version])).toEqual([
        ['etl', 'etl.yaml', dagVersion(A)],
        ['report', 'report.yml', dagVersion(A)],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('updates a file in place (keeping its name and mode), leaving no temp file behind', async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'etl.yml');
      writeFileSync(file, A);
      chmodSync(file, 0o600);
      const store = new FileDagDefinitions(dir);
      const r = await store.put('etl', 'steps: []\n', { expectedVersion: dagVersion(A) });
      expect(r).toMatchObject({ ok: true, outcome: 'updated' });
      expect(readFileSync(file, 'utf8')).toBe('steps: []\n');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['etl.yml']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('notices a file another process replaced, by a new revision', async () => {
    const dir = tempDir();
    try {
      writeFileSync(path.join(dir, 'etl.yaml'), A);
      const store = new FileDagDefinitions(dir);
      const before = await store.revision();
      expect(await store.revision()).toBe(before);
      writeFileSync(path.join(dir, '.etl.yaml.tmp-x'), 'steps: []\n');
      renameSync(path.join(dir, '.etl.yaml.tmp-x'), path.join(dir, 'etl.yaml'));
      expect(await store.revision()).not.toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
