import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { BadRequestError, CorruptRecordError, NotFoundError } from './errors';
import { enqueueDag } from './queue';
import { compileRunListQuery, getRun, listRuns } from './runs';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
  svc.writeDag('a', 'steps:\n  - name: s\n    command: "true"\n');
  svc.writeDag('b', 'steps:\n  - name: s\n    command: "true"\n');
});
afterEach(() => svc.cleanup());

describe('listRuns', () => {
  it('lists runs newest first, filtered by DAG and status, one page at a time', async () => {
    const ids: string[] = [];
    for (const dag of ['a', 'b', 'a', 'a']) {
      ids.push((await enqueueDag(svc, dag, [])).run_id);
      svc.clock.advance(1000);
    }
    const first = await listRuns(svc, { dag: 'a', limit: '2' });
    expect(first.items.map((r) => r.run_id)).toEqual([ids[3], ids[2]]);
    const second = await listRuns(svc, { dag: 'a', limit: '2', cursor: first.next_cursor });
    expect(second.items.map((r) => r.run_id)).toEqual([ids[0]]);
    expect((await listRuns(svc, { status: 'failed' })).items).toEqual([]);
    expect((await listRuns(svc, { status: 'queued' })).items).toHaveLength(4);
  });

  it('names the field of an invalid query', () => {
    expect(() => compileRunListQuery({ status: 'done' })).toThrow(
      /^status: "done" is not one of queued, running/,
    );
    expect(() => compileRunListQuery({ limit: '0' })).toThrow(/^limit: "0" must be an integer from 1 to 500/);
    expect(() => compileRunListQuery({ limit: 'ten' })).toThrow(BadRequestError);
    expect(() => compileRunListQuery({ dag: '../x' })).toThrow(InvalidNameError);
  });

  it('treats empty query values as absent and pages 50 runs by default', () => {
    expect(compileRunListQuery({ dag: '', status: '', limit: '', cursor: '' })).toEqual({ limit: 50 });
  });
});

describe('getRun', () => {
  it('fails with NotFoundError for an unknown run and InvalidNameError for a malformed ID', async () => {
    await expect(getRun(svc, 'unknown')).rejects.toBeInstanceOf(NotFoundError);
    await expect(getRun(svc, 'a/b')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('reports a corrupt status file as such, naming the file', async () => {
    svc.runs.readStatus = async () => ({
      kind: 'corrupt',
      error: 'Unexpected end of JSON input',
      path: '/data/x/status.json',
    });
    const err = await getRun(svc, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptRecordError);
    expect((err as Error).message).toBe(
      'run x has a corrupt status file (/data/x/status.json): Unexpected end of JSON input',
    );
  });
});
