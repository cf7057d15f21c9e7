// The behaviour every DagDefinitions must have; run against the file, memory and PostgreSQL forms.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { MAX_DAG_FILE_BYTES } from './dagCatalog';
import { InvalidDagTextError, type DagDefinitions } from './dagDefinitions';
import { dagVersion } from './dagFiles';
import type { StoreFixture } from './runStore.contract';

const A = 'steps:\n  - name: a\n    run: echo a\n';
const B = 'steps:\n  - name: b\n    run: echo b\n';
const C = 'steps:\n  - name: c\n    run: echo c\n';

export interface DagDefinitionsContractOptions {
  /** Whether `updatedBy` keeps the writer (the file form has nowhere to keep it). */
  recordsWriter: boolean;
}

export function describeDagDefinitionsContract(
  name: string,
  make: () => Promise<StoreFixture<DagDefinitions>>,
  opts: DagDefinitionsContractOptions,
) {
  describe(`${name} (DagDefinitions contract)`, () => {
    let fixture: StoreFixture<DagDefinitions>;
    let dags: DagDefinitions;
    beforeEach(async () => {
      fixture = await make();
      dags = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('holds no DAG before any is written', async () => {
      expect(await dags.list()).toEqual([]);
      expect(await dags.get('etl')).toBeNull();
      expect(await dags.getMany(['etl'])).toEqual([]);
    });

    it('creates a DAG and reads back its text, its version (the text’s SHA-256) and its file name', async () => {
      expect(await dags.put('etl', A, { by: 'cli:test' })).toEqual({
        ok: true,
        outcome: 'created',
        version: dagVersion(A),
      });
      const got = await dags.get('etl');
      expect(got).toMatchObject({ name: 'etl', yaml: A, version: dagVersion(A), fileName: 'etl.yaml' });
      expect(Number.isNaN(Date.parse(got!.updatedAt))).toBe(false);
      expect(got!.updatedBy).toBe(opts.recordsWriter ? 'cli:test' : null);
      const { yaml: _yaml, ...entry } = got!;
      expect(await dags.list()).toEqual([entry]);
    });

    it('lists DAGs sorted by name, and reads several at once, skipping names it does not hold', async () => {
      for (const n of ['report', 'etl', 'b.2', 'a-1']) await dags.put(n, A);
      expect((await dags.list()).map((d) => d.name)).toEqual(['a-1', 'b.2', 'etl', 'report']);
      const many = await dags.getMany(['report', 'nothing', 'a-1']);
      expect(many.map((d) => [d.name, d.yaml])).toEqual([
        ['a-1', A],
        ['report', A],
      ]);
    });

    it('reports an identical text as unchanged without writing, and a new text as updated', async () => {
      await dags.put('etl', A);
      const before = await dags.revision();
      expect(await dags.put('etl', A)).toEqual({ ok: true, outcome: 'unchanged', version: dagVersion(A) });
      expect(await dags.revision()).toBe(before);
      expect(await dags.put('etl', B)).toEqual({ ok: true, outcome: 'updated', version: dagVersion(B) });
      expect(await dags.revision()).not.toBe(before);
      expect((await dags.get('etl'))?.yaml).toBe(B);
    });

    it('creates only when asked to (expected version null), and says the name is taken otherwise', async () => {
      expect(await dags.put('etl', A, { expectedVersion: null })).toMatchObject({
        ok: true,
        outcome: 'created',
      });
      expect(await dags.put('etl', B, { expectedVersion: null })).toEqual({ ok: false, reason: 'taken' });
      expect((await dags.get('etl'))?.yaml).toBe(A);
    });

    it('saves over the expected version only, and hands back what is there now on a conflict', async () => {
      await dags.put('etl', A);
      expect(await dags.put('etl', B, { expectedVersion: dagVersion(A) })).toMatchObject({
        ok: true,
        outcome: 'updated',
      });
      const stale = await dags.put('etl', C, { expectedVersion: dagVersion(A) });
      expect(stale).toMatchObject({
        ok: false,
        reason: 'conflict',
        current: { yaml: B, version: dagVersion(B) },
      });
      expect((await dags.get('etl'))?.yaml).toBe(B);
      // Saving the text it already has, from the version it has, writes nothing.
      expect(await dags.put('etl', B, { expectedVersion: dagVersion(B) })).toMatchObject({
        ok: true,
        outcome: 'unchanged',
      });
      expect(await dags.put('gone', A, { expectedVersion: dagVersion(A) })).toEqual({
        ok: false,
        reason: 'missing',
      });
      expect(await dags.get('gone')).toBeNull();
    });

    it('lets exactly one of several saves from the same loaded version through', async () => {
      await dags.put('etl', A);
      const texts = [1, 2, 3, 4, 5].map((i) => `${B}# edit ${i}\n`);
      const results = await Promise.all(
        texts.map((t) => dags.put('etl', t, { expectedVersion: dagVersion(A) })),
      );
      const won = results.flatMap((r, i) => (r.ok ? [texts[i]] : []));
      expect(won).toHaveLength(1);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === 'conflict')).toBe(true);
      expect((await dags.get('etl'))?.yaml).toBe(won[0]);
    });

    it('keeps a created DAG’s .yml file name through updates and renames', async () => {
      await dags.put('etl', A, { fileName: 'etl.yml' });
      await dags.put('etl', B, { fileName: 'etl.yaml' });
      expect((await dags.get('etl'))?.fileName).toBe('etl.yml');
      expect(await dags.rename('etl', 'load')).toEqual({ ok: true, fileName: 'load.yml' });
      // A file name that is not the DAG's own is not taken.
      await dags.put('other', A, { fileName: 'etl.yml' });
      expect((await dags.get('other'))?.fileName).toBe('other.yaml');
    });

    it('renames a DAG with its text, unless it is missing, changed or the new name is taken', async () => {
      expect(await dags.rename('etl', 'load')).toEqual({ ok: false, reason: 'missing' });
      await dags.put('etl', A);
      await dags.put('taken', C);
      expect(await dags.rename('etl', 'taken')).toEqual({ ok: false, reason: 'taken' });
      expect(await dags.rename('etl', 'load', { expectedVersion: dagVersion(B) })).toMatchObject({
        ok: false,
        reason: 'conflict',
        current: { yaml: A },
      });
      const before = await dags.revision();
      expect(await dags.rename('etl', 'load', { expectedVersion: dagVersion(A) })).toEqual({
        ok: true,
        fileName: 'load.yaml',
      });
      expect(await dags.revision()).not.toBe(before);
      expect(await dags.get('etl')).toBeNull();
      expect(await dags.get('load')).toMatchObject({ yaml: A, version: dagVersion(A) });
      expect((await dags.list()).map((d) => d.name)).toEqual(['load', 'taken']);
    });

    it('deletes a DAG, unless it is missing or changed since the expected version', async () => {
      expect(await dags.delete('etl')).toEqual({ ok: false, reason: 'missing' });
      await dags.put('etl', A);
      expect(await dags.delete('etl', { expectedVersion: dagVersion(B) })).toMatchObject({
        ok: false,
        reason: 'conflict',
        current: { yaml: A },
      });
      const before = await dags.revision();
      expect(await dags.delete('etl', { expectedVersion: dagVersion(A) })).toEqual({ ok: true });
      expect(await dags.revision()).not.toBe(before);
      expect(await dags.get('etl')).toBeNull();
      expect(await dags.list()).toEqual([]);
    });

    it('keeps its revision through reads and changes it at every write', async () => {
      const writes: Array<() => Promise<unknown>> = [
        () => dags.put('etl', A),
        () => dags.put('etl', B),
        () => dags.rename('etl', 'load'),
        () => dags.delete('load'),
      ];
      for (const write of writes) {
        const before = await dags.revision();
        await dags.list();
        await dags.getMany(['etl', 'load']);
        expect(await dags.revision()).toBe(before);
        await write();
        expect(await dags.revision()).not.toBe(before);
      }
    });

    it('refuses a name that is not a DAG name, and a text no DAG file may hold, before writing', async () => {
      await expect(dags.put('../x', A)).rejects.toThrow(InvalidNameError);
      await expect(dags.get('a/b')).rejects.toThrow(InvalidNameError);
      await expect(dags.getMany(['ok', '..'])).rejects.toThrow(InvalidNameError);
      await expect(dags.rename('etl', 'no/slash')).rejects.toThrow(InvalidNameError);
      await expect(dags.delete('')).rejects.toThrow(InvalidNameError);
      await expect(dags.put('etl', 'steps: []\n\u0000')).rejects.toThrow(InvalidDagTextError);
      await expect(dags.put('etl', 'x'.repeat(MAX_DAG_FILE_BYTES + 1))).rejects.toThrow(/at most/);
      expect(await dags.list()).toEqual([]);
    });

    it('keeps any text byte for byte: comments, blank lines, non-ASCII, a missing final newline', async () => {
      const text = '# Ünïcode ✓ — 日本語\n\nsteps:\n  - name: a\n    run: echo "é"  # trailing\n\n\n  ';
      await dags.put('etl', text);
      const got = await dags.get('etl');
      expect(got?.yaml).toBe(text);
      expect(got?.version).toBe(dagVersion(text));
    });
  });
}
