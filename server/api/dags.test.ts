import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { newRunStatus } from '../core/runStatus';
import { getDag, listDags } from './dags';
import { NotFoundError } from './errors';
import { testServices, type TestServices } from './testServices';

const EVERY_MINUTE = `description: Runs every minute
tags: [demo]
schedule: "* * * * *"
steps:
  - name: hello
    command: echo hi
`;

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

describe('listDags', () => {
  it('lists each DAG with its schedule, the next slot after now and its latest run', async () => {
    svc.writeDag('minutely', EVERY_MINUTE);
    svc.writeDag('manual', 'steps:\n  - name: a\n    command: "true"\n');
    const dag = (await getDag(svc, 'minutely')).dag!;
    await svc.runs.createRun(
      newRunStatus({
        dag,
        runId: 'r1',
        status: 'queued',
        triggerType: 'manual',
        scheduleTime: null,
        params: [],
        nowIso: '2026-11-30T01:00:00Z',
      }),
    );

    const { dags } = await listDags(svc);

    expect(dags.map((d) => d.name)).toEqual(['manual', 'minutely']);
    const minutely = dags[1];
    expect(minutely).toMatchObject({
      description: 'Runs every minute',
      tags: ['demo'],
      schedule: ['* * * * *'],
      next_run: '2026-11-30T01:15:00Z',
      errors: [],
    });
    expect(minutely.last_run?.run_id).toBe('r1');
    expect(dags[0]).toMatchObject({ schedule: [], next_run: null, last_run: null });
  });

  it('lists an invalid DAG file with errors naming the file, line and field', async () => {
    svc.writeDag('broken', 'steps:\n  - name: a\n    command: "true"\n    retries: 3\n');

    const { dags } = await listDags(svc);

    expect(dags).toHaveLength(1);
    expect(dags[0].name).toBe('broken');
    expect(dags[0].errors.join('\n')).toMatch(/broken\.yaml:4.*retries/);
  });

  it('shows no DAGs for an empty DAGs directory', async () => {
    expect(await listDags(svc)).toEqual({ dags: [] });
  });
});

describe('getDag', () => {
  it('returns the parsed definition and recent runs', async () => {
    svc.writeDag('minutely', EVERY_MINUTE);
    const detail = await getDag(svc, 'minutely');
    expect(detail.dag?.steps.map((s) => s.name)).toEqual(['hello']);
    expect(detail.recent_runs).toEqual([]);
  });

  it('never serves the SMTP password of a DAG or of its local sub-DAGs', async () => {
    const smtp = 'smtp:\n  host: mail.example\n  port: 25\n  username: u\n  password: hunter2\n';
    svc.writeDag(
      'mailer',
      `${smtp}steps:\n  - call: child\n---\nname: child\n${smtp}steps:\n  - run: "true"\n`,
    );
    const detail = await getDag(svc, 'mailer');
    expect(detail.dag?.smtp).toEqual({ host: 'mail.example', port: 25, username: 'u', password: '********' });
    expect(detail.dag?.local_dags?.child.smtp?.password).toBe('********');
    expect(JSON.stringify(detail)).not.toContain('hunter2');
  });

  it('fails with NotFoundError for an unknown DAG', async () => {
    await expect(getDag(svc, 'nope')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a name that could leave the DAGs directory before touching the file system', async () => {
    await expect(getDag(svc, '../etc/passwd')).rejects.toBeInstanceOf(InvalidNameError);
  });
});
