import { describe, expect, it } from 'vitest';
import { readBaseLayer, type BaseLayer } from './baseConfig';
import { parseDag, type ParseDagResult } from './parseDag';

function layer(text: string | null, extra: { defaultShell?: string; tz?: string } = {}): BaseLayer | null {
  const r = readBaseLayer({ text, file: '/home/base.yaml', ...extra });
  if (!r.ok) throw new Error(r.error.message);
  return r.layer;
}

function parse(dag: string, base: BaseLayer | null): Extract<ParseDagResult, { ok: true }>['dag'] {
  const r = parseDag(dag, { file: '/dags/etl.yaml', defaultName: 'etl', base });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.dag;
}

const STEPS = 'steps:\n  - name: a\n    command: echo a\n';

describe("Dagu's base config laid under a DAG", () => {
  it('gives the DAG the keys it does not set, and lets it win on the ones it sets', () => {
    const base = layer(
      'max_active_steps: 10\ncatchup_window: 6h\noverlap_policy: skip\nmax_active_runs: 3\n',
    );
    const dag = parse(`max_active_runs: 2\n${STEPS}`, base);
    expect(dag).toMatchObject({
      max_active_steps: 10,
      catchup_window_ms: 6 * 3600_000,
      overlap_policy: 'skip',
    });
    expect(dag.max_active_runs).toBe(2);
    expect(parse(STEPS, base).max_active_runs).toBe(3);
  });

  it('names the handlers only the base gave, which a sub-DAG run leaves out', () => {
    const base = layer(
      'handler_on:\n  failure:\n    command: echo base-f\n  exit:\n    command: echo base-x\n',
    );
    expect(parse(STEPS, base).base_handlers).toEqual(['failure', 'exit']);
    const own = parse(`handler_on:\n  exit:\n    command: echo own\n${STEPS}`, base);
    expect(own.base_handlers).toEqual(['failure']);
    expect(own.handler_on.exit?.command).toEqual(['echo own']);
    expect(parse(STEPS, layer('max_active_steps: 2\n')).base_handlers).toBeUndefined();
  });

  it("appends env: the base's entries first, so the DAG's own value of a name wins", () => {
    const base = layer('env:\n  - SHARED: base\n  - ONLY_BASE: b\n');
    const dag = parse(`env:\n  SHARED: dag\n  ONLY_DAG: d\n${STEPS}`, base);
    expect(dag.env).toMatchObject({ SHARED: 'dag', ONLY_BASE: 'b', ONLY_DAG: 'd' });
    expect(Object.keys(dag.env).indexOf('ONLY_BASE')).toBeLessThan(Object.keys(dag.env).indexOf('ONLY_DAG'));
    expect(parse(STEPS, base).env).toMatchObject({ SHARED: 'base', ONLY_BASE: 'b' });
  });

  it('merges handler_on handler by handler; a handler the DAG sets replaces the base one', () => {
    const base = layer(
      'handler_on:\n  failure:\n    command: echo base-failure\n  exit:\n    command: echo base-exit\n',
    );
    const dag = parse(`handler_on:\n  exit:\n    command: echo dag-exit\n${STEPS}`, base);
    expect(JSON.stringify(dag.handler_on.failure)).toContain('base-failure');
    expect(JSON.stringify(dag.handler_on.exit)).toContain('dag-exit');
    expect(JSON.stringify(dag.handler_on.exit)).not.toContain('base-exit');
  });

  it("reads a base written in 1.x camelCase (handlerOn, histRetentionDays, cancel) in 2.x's names", () => {
    const base = layer(
      'histRetentionDays: 7\nmaxActiveSteps: 4\nhandlerOn:\n  cancel:\n    command: echo stopped\n',
    );
    const dag = parse(STEPS, base);
    expect(dag.max_active_steps).toBe(4);
    expect(JSON.stringify(dag.handler_on.abort)).toContain('echo stopped');
    expect(JSON.stringify(dag)).toMatch(/"hist_retention_days":7/);
  });

  it('merges smtp field by field and replaces mail_on whole', () => {
    const base = layer(
      'smtp:\n  host: mail.example\n  port: "25"\nmail_on:\n  failure: true\n  success: true\n',
    );
    const dag = parse(`smtp:\n  port: "2525"\nmail_on:\n  failure: true\n${STEPS}`, base);
    expect(dag.smtp).toMatchObject({ host: 'mail.example', port: 2525 });
    expect(dag.mail_on).toEqual({ failure: true, success: false, wait: false });
  });

  it('does not inherit name or steps, and applies to every document of the file', () => {
    const base = layer(`name: base\nmax_active_steps: 2\n${STEPS}`);
    const dag = parse(`steps:\n  - name: only\n    command: echo x\n---\nname: child\n${STEPS}`, base);
    expect(dag.name).toBe('etl');
    expect(dag.steps.map((s) => s.name)).toEqual(['only']);
    expect(dag.local_dags?.child?.max_active_steps).toBe(2);
  });

  it("uses the config's default_shell where neither sets a shell, and its tz for schedules without a zone", () => {
    const base = layer(null, { defaultShell: 'bash', tz: 'Asia/Tokyo' });
    const dag = parse(`schedule:\n  - "0 9 * * *"\n  - "CRON_TZ=UTC 0 1 * * *"\n${STEPS}`, base);
    expect(dag.shell).toBe('bash');
    expect(dag.schedule.map((s) => s.timezone)).toEqual(['Asia/Tokyo', 'UTC']);
    expect(parse(`shell: zsh\n${STEPS}`, base).shell).toBe('zsh');
    expect(parse(STEPS, layer('shell: sh\n', { defaultShell: 'bash' })).shell).toBe('sh');
  });

  it('is no layer for an empty or missing base, and names the base file when it is not a mapping', () => {
    expect(layer(null)).toBeNull();
    expect(layer('# nothing\n')).toBeNull();
    const r = readBaseLayer({ text: '- a\n', file: '/home/base.yaml' });
    expect(r).toMatchObject({
      ok: false,
      error: { file: '/home/base.yaml', message: 'base config: must be a mapping of DAG keys' },
    });
    const bad = readBaseLayer({ text: 'env: [\n', file: '/home/base.yaml' });
    expect(bad.ok ? '' : bad.error.message).toMatch(/^base config: invalid YAML/);
  });

  it("keeps the DAG's own errors at their lines", () => {
    const base = layer('max_active_steps: 10\nenv:\n  - A: 1\n');
    const r = parseDag(`env:\n  - B: 2\nsteps:\n  - name: a\n    command: echo\n    timeout_sec: soon\n`, {
      file: '/dags/etl.yaml',
      defaultName: 'etl',
      base,
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ line: 6, field: expect.stringContaining('timeout_sec') });
  });
});
