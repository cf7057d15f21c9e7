import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { fileControlPlane } from '../store/fileControlPlane';
import { testRunStatus } from '../testing/testRunStatus';
import { BadRequestError } from './errors';
import { searchEverything } from './search';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
  svc.writeDag(
    'backup',
    'description: copies the shop database\ntags: [ops]\nsteps:\n  - name: dump\n    command: pg_dump shop\n',
  );
  svc.writeDag(
    'etl',
    'tags: [daily]\nsteps:\n  - name: load\n    script: |\n      python load.py --table orders\n',
  );
  svc.writeDag('broken-dag', 'steps:\n  - name: a\n');
});
afterEach(() => svc.cleanup());

describe('GET /api/v1/search', () => {
  it('finds a DAG by a word of one of its step commands or scripts', async () => {
    expect((await searchEverything(svc, 'pg_dump')).dags.map((d) => [d.name, d.fields])).toEqual([
      ['backup', ['command']],
    ]);
    expect((await searchEverything(svc, 'orders')).dags[0]).toMatchObject({
      name: 'etl',
      snippet: 'load: python load.py --table orders',
    });
  });

  it('finds DAGs by tag and description, and a file that does not parse by its name', async () => {
    expect((await searchEverything(svc, 'ops')).dags.map((d) => d.name)).toEqual(['backup']);
    expect((await searchEverything(svc, 'database')).dags.map((d) => d.name)).toEqual(['backup']);
    expect((await searchEverything(svc, 'broken')).dags.map((d) => d.name)).toEqual(['broken-dag']);
  });

  it('finds runs by their exact ID or its start, the exact one first', async () => {
    // Runs in the file store: run IDs are found from its directories.
    (svc as { runs: unknown }).runs = fileControlPlane(svc.config, silentLogger, svc.clock).runs;
    for (const id of ['manual-abc1', 'manual-abc', 'other']) {
      await svc.runs.createRun(testRunStatus({ run_id: id, dag_name: 'etl' }));
    }
    svc.writeDag('manual', 'steps:\n  - name: a\n    command: "true"\n');
    const found = await searchEverything(svc, 'manual-abc');
    expect(found.runs.map((r) => [r.run_id, r.exact, r.dag_name])).toEqual([
      ['manual-abc', true, 'etl'],
      ['manual-abc1', false, 'etl'],
    ]);
  });

  it('refuses an empty or too long query naming q', async () => {
    await expect(searchEverything(svc, '  ')).rejects.toThrow(BadRequestError);
    await expect(searchEverything(svc, null)).rejects.toThrow(/^q: /);
    await expect(searchEverything(svc, 'x'.repeat(201))).rejects.toThrow(/^q: at most 200/);
  });
});
