import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { runTemplateAction } from './templateAction';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-template-action-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('template action', () => {
  it('renders the script with with.data to stdout', async () => {
    const ctx = testContext({ script: '{{ .greeting }}, world!\n', with: { data: { greeting: 'hello' } } });
    expect(await runTemplateAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('hello, world!\n');
  });

  it('renders with empty data when with.data is absent', async () => {
    const ctx = testContext({ script: 'plain ${BAR}' });
    expect(await runTemplateAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('plain ${BAR}');
  });

  it('writes with.output relative to the working directory, creating parents, and prints nothing', async () => {
    const ctx = testContext({
      script: '{{ .msg }}',
      with: { data: { msg: 'relative' }, output: 'sub/dir/out.txt' },
      workingDir: dir,
    });
    expect(await runTemplateAction(ctx)).toEqual({ exitCode: 0, error: null });
    const file = join(dir, 'sub', 'dir', 'out.txt');
    expect(await readFile(file, 'utf8')).toBe('relative');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(ctx.out.text()).toBe('');
  });

  it('writes an absolute with.output as is, replacing an older file', async () => {
    const file = join(dir, 'abs.md');
    for (const title of ['One', 'Two']) {
      const ctx = testContext({ script: '# {{ .title }}\n', with: { data: { title }, output: file } });
      expect(await runTemplateAction(ctx)).toEqual({ exitCode: 0, error: null });
    }
    expect(await readFile(file, 'utf8')).toBe('# Two\n');
  });

  it('fails on a missing key with the execution error', async () => {
    const ctx = testContext({ script: '{{ .undefined_key }}', with: { data: { name: 'test' } } });
    expect(await runTemplateAction(ctx)).toEqual({
      exitCode: 1,
      error:
        'template: execution error: template: template:1:3: executing "template" at <.undefined_key>: map has no entry for key "undefined_key"',
    });
    expect(ctx.out.text()).toBe('');
  });

  it('fails on a template that does not parse, and on a blocked function', async () => {
    const bad = await runTemplateAction(testContext({ script: '{{ if .x }}' }));
    expect(bad.error).toBe('template: parse error: template: template:1: unexpected EOF');
    const env = await runTemplateAction(testContext({ script: '{{ env "HOME" }}' }));
    expect(env.error).toBe('template: parse error: template: template:1: function "env" not defined');
  });

  it('renders a resolved with.template_ref when there is no script', async () => {
    const ctx = testContext({
      with: { template_ref: 'Hello, {{ .name }}! ${env.NESTED}', data: { name: 'Alice' } },
    });
    expect(await runTemplateAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('Hello, Alice! ${env.NESTED}');
    const unresolved = await runTemplateAction(testContext({ with: { template_ref: '${env.MISSING}' } }));
    expect(unresolved.error).toContain('${env.MISSING} did not resolve');
  });

  it('fails, writing nothing, when with.output still holds a reference', async () => {
    const ctx = testContext({
      script: 'x',
      with: { output: '${DAG_RUN_ARTIFACTS_DIR}/g.txt' },
      workingDir: dir,
    });
    expect((await runTemplateAction(ctx)).error).toBe(
      'template: with.output: ${DAG_RUN_ARTIFACTS_DIR} did not resolve to a value',
    );
  });

  it('refuses data that is not a map', async () => {
    const result = await runTemplateAction(testContext({ script: 'x', with: { data: ['a'] } }));
    expect(result.error).toBe("template: 'data' expected a map");
  });
});
