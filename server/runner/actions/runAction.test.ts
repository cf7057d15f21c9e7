import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { isInProcessAction, runAction } from './runAction';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-run-action-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runAction', () => {
  it('writes a log message to stdout with a line break added', async () => {
    const ctx = testContext({ with: { message: 'Deploying ${ENVIRONMENT}' } });
    expect(await runAction({ kind: 'log', with: ctx.with }, ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('Deploying ${ENVIRONMENT}\n');
  });

  it('keeps the line break a log message already ends with', async () => {
    const ctx = testContext({ with: { message: 'line one\nline two\n' } });
    await runAction({ kind: 'log', with: ctx.with }, ctx);
    expect(ctx.out.text()).toBe('line one\nline two\n');
  });

  it('refuses a log step without a text message', async () => {
    const missing = testContext();
    expect(await runAction({ kind: 'log', with: {} }, missing)).toEqual({
      exitCode: 1,
      error: 'log: with.message is required',
    });
    const notText = testContext({ with: { message: 3 } });
    expect(await runAction({ kind: 'log', with: notText.with }, notText)).toEqual({
      exitCode: 1,
      error: 'log: with.message must be text',
    });
  });

  it("prints a router's value and routes, as Dagu's router does", async () => {
    const ctx = testContext({});
    const routes = [
      { pattern: 'a', targets: ['x', 'y'] },
      { pattern: 're:.*', targets: ['z'] },
    ];
    expect(await runAction({ kind: 'router', value: '${MODE}', routes }, ctx)).toEqual({
      exitCode: 0,
      error: null,
    });
    expect(ctx.out.text()).toBe('Router evaluating: ${MODE}\n  a -> [x y]\n  re:.* -> [z]\n');
  });

  it('publishes outputs.write values as the step outputs, printing nothing', async () => {
    const ctx = testContext({ with: { values: { verdict: 'clean', n: 3 } } });
    expect(await runAction({ kind: 'outputs', with: ctx.with }, ctx)).toEqual({
      exitCode: 0,
      error: null,
      outputs: { verdict: 'clean', n: 3 },
    });
    expect(ctx.out.text()).toBe('');
    const bad = testContext({ with: { values: ['a'] } });
    expect(await runAction({ kind: 'outputs', with: bad.with }, bad)).toEqual({
      exitCode: 1,
      error: 'outputs: values must be an object',
    });
  });

  it('runs noop with nothing written', async () => {
    const ctx = testContext();
    expect(await runAction({ kind: 'noop' }, ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('');
  });

  it('writes to a step log file given as a file descriptor', async () => {
    const path = join(dir, 'step.out');
    const fd = openSync(path, 'a+');
    try {
      const ctx = testContext({ stdout: fd, with: { filter: '.[]', data: [1, 2] } });
      expect(await runAction({ kind: 'jq', with: ctx.with }, ctx)).toEqual({ exitCode: 0, error: null });
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, 'utf8')).toBe('1\n2\n');
  });

  it('does not start an action whose step is already stopped', async () => {
    const stop = new AbortController();
    stop.abort();
    const ctx = testContext({ signal: stop.signal, with: { message: 'x' } });
    expect(await runAction({ kind: 'log', with: ctx.with }, ctx)).toEqual({
      exitCode: 1,
      error: 'log: stopped before it started',
    });
    expect(ctx.out.text()).toBe('');
  });

  it('tells the actions it runs from the ones the runner runs', () => {
    expect(isInProcessAction({ kind: 'http', with: {} })).toBe(true);
    expect(isInProcessAction({ kind: 'noop' })).toBe(true);
    expect(isInProcessAction({ kind: 'file', op: 'read', with: {} })).toBe(true);
    expect(isInProcessAction({ kind: 'wait', op: 'duration', with: {} })).toBe(true);
    expect(isInProcessAction({ kind: 'command' })).toBe(false);
    expect(isInProcessAction({ kind: 'exec', command: 'x', args: [] })).toBe(false);
    expect(isInProcessAction(undefined)).toBe(false);
  });
});
