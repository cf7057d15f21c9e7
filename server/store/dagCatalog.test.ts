import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { listDagFiles, loadAllDags, loadDag, loadDagByName, MAX_DAG_FILE_BYTES } from './dagCatalog';

const ONE_STEP = 'steps:\n  - name: hello\n    command: echo hi\n';

describe('dagCatalog', () => {
  let dagsDir: string;
  beforeEach(async () => {
    dagsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-dags-'));
  });
  afterEach(async () => {
    await fs.rm(dagsDir, { recursive: true, force: true });
  });
  const write = (name: string, text: string) => fs.writeFile(path.join(dagsDir, name), text);

  it('lists .yaml and .yml files sorted by name, ignoring hidden files, other files and directories', async () => {
    await write('zeta.yaml', ONE_STEP);
    await write('alpha.yml', ONE_STEP);
    await write('.hidden.yaml', ONE_STEP);
    await write('notes.txt', 'x');
    await fs.mkdir(path.join(dagsDir, 'dir.yaml'));
    expect(await listDagFiles(dagsDir)).toEqual([
      { name: 'alpha', file: path.join(dagsDir, 'alpha.yml') },
      { name: 'zeta', file: path.join(dagsDir, 'zeta.yaml') },
    ]);
    expect(await listDagFiles(path.join(dagsDir, 'missing'))).toEqual([]);
  });

  it('loads a DAG by name from .yaml or .yml', async () => {
    await write('etl.yaml', ONE_STEP);
    await write('report.yml', ONE_STEP);
    const etl = await loadDag(dagsDir, 'etl');
    expect(etl.ok && [etl.dag.name, etl.dag.file]).toEqual(['etl', path.join(dagsDir, 'etl.yaml')]);
    const report = await loadDag(dagsDir, 'report');
    expect(report.ok && report.dag.name).toBe('report');
  });

  it('loads a DAG by path as given', async () => {
    const elsewhere = path.join(dagsDir, 'sub');
    await fs.mkdir(elsewhere);
    await fs.writeFile(path.join(elsewhere, 'adhoc.yaml'), ONE_STEP);
    const result = await loadDag('/nonexistent', path.join(elsewhere, 'adhoc.yaml'));
    expect(result.ok && result.dag.name).toBe('adhoc');
  });

  it('finds a DAG whose name key differs from its file name', async () => {
    await write('file-name.yaml', `name: declared\n${ONE_STEP}`);
    const result = await loadDag(dagsDir, 'declared');
    expect(result.ok && result.dag.file).toBe(path.join(dagsDir, 'file-name.yaml'));
  });

  it('reports a missing DAG as not found', async () => {
    expect(await loadDag(dagsDir, 'nope')).toEqual({ ok: false, notFound: true });
    expect(await loadDag(dagsDir, path.join(dagsDir, 'nope.yaml'))).toEqual({ ok: false, notFound: true });
  });

  it('refuses a DAG name that would escape the DAGs directory', async () => {
    await expect(loadDag(dagsDir, '..')).rejects.toBeInstanceOf(InvalidNameError);
    await expect(loadDag(dagsDir, '.hidden')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('returns the errors of an invalid DAG with its file', async () => {
    await write('broken.yaml', 'steps: [\n');
    const result = await loadDag(dagsDir, 'broken');
    expect(result.ok).toBe(false);
    expect('errors' in result && result.errors[0].file).toBe(path.join(dagsDir, 'broken.yaml'));
  });

  it('loads every DAG file with its own result', async () => {
    await write('good.yaml', ONE_STEP);
    await write('bad.yaml', 'unknown_key: 1\n' + ONE_STEP);
    const results = await loadAllDags(dagsDir);
    expect(results.map((r) => [r.name, r.result.ok])).toEqual([
      ['bad', false],
      ['good', true],
    ]);
  });

  it('refuses a file over 1 MiB with its size, without parsing it', async () => {
    const text = `description: "${'x'.repeat(MAX_DAG_FILE_BYTES)}"\n${ONE_STEP}`;
    await write('huge.yaml', text);
    expect(await loadDag(dagsDir, 'huge')).toEqual({
      ok: false,
      errors: [
        {
          file: path.join(dagsDir, 'huge.yaml'),
          line: null,
          column: null,
          field: '',
          message: `the file has ${Buffer.byteLength(text)} bytes; a DAG file has at most 1048576 bytes`,
        },
      ],
    });
  });

  it('looks a name ending in .yaml up by name only, never in the working directory', async () => {
    // The test's working directory is the project, which holds no `package.yaml`; loadDag would try it there.
    await write('package.yaml.yaml', ONE_STEP);
    const r = await loadDagByName(dagsDir, 'package.yaml');
    expect(r.ok && r.dag.file).toBe(path.join(dagsDir, 'package.yaml.yaml'));
    expect(await loadDagByName(dagsDir, 'other.yml')).toEqual({ ok: false, notFound: true });
    await expect(loadDagByName(dagsDir, '../x')).rejects.toBeInstanceOf(InvalidNameError);
  });
});
