import { afterEach, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../tests/support/smtpSink';
import type { DagSpec, RunStatus } from '../core/types';
import { testRunStatus } from '../testing/testRunStatus';
import { notifyRun, runMailFor } from './runNotification';
import { dagOf, stepOf } from './testSupport';

let sink: SmtpSink | null = null;
afterEach(async () => {
  await sink?.close();
  sink = null;
});

const errorMail = { from: 'dagu@x.io', to: ['ops@x.io'], prefix: '[ERR]', attach_logs: false };
const infoMail = { from: 'dagu@x.io', to: ['team@x.io'], prefix: '[OK]', attach_logs: false };
const mailDag = (port: number, on: { failure: boolean; success: boolean }): DagSpec =>
  dagOf([stepOf('a', 'true')], {
    name: 'etl',
    smtp: { host: '127.0.0.1', port, username: '', password: '' },
    mail_on: on,
    error_mail: errorMail,
    info_mail: infoMail,
  });
const run = (status: RunStatus['status'], stepState: 'succeeded' | 'failed' = 'succeeded'): RunStatus => {
  const s = testRunStatus({ run_id: 'r1', dag_name: 'etl', status });
  const step = { ...stepOf('a', 'true'), status: stepState } as unknown as RunStatus['steps'][number];
  return { ...s, steps: [{ ...step, name: 'a', exit_code: stepState === 'failed' ? 1 : 0 }] };
};

describe('run notifications', () => {
  it('picks the error mail for a failure or a partial success, the info mail for a success', () => {
    const dag = mailDag(25, { failure: true, success: true });
    expect(runMailFor(dag, run('failed', 'failed'))).toBe(errorMail);
    expect(runMailFor(dag, run('partially_succeeded', 'failed'))).toBe(errorMail);
    expect(runMailFor(dag, run('succeeded'))).toBe(infoMail);
    expect(runMailFor(dag, run('aborted'))).toBeNull();
    expect(runMailFor(mailDag(25, { failure: false, success: false }), run('failed', 'failed'))).toBeNull();
  });

  it('picks the wait mail for an attempt that stopped waiting only when mail_on.wait is set', () => {
    const waitMail = { from: 'dagu@x.io', to: ['approvers@x.io'], prefix: '[WAIT]', attach_logs: false };
    const waiting = { ...mailDag(25, { failure: true, success: true }), wait_mail: waitMail };
    expect(runMailFor(waiting, run('waiting'))).toBeNull();
    waiting.mail_on = { failure: true, success: true, wait: true };
    expect(runMailFor(waiting, run('waiting'))).toBe(waitMail);
    expect(runMailFor(waiting, run('succeeded'))).toBe(infoMail);
    expect(runMailFor({ ...waiting, wait_mail: null }, run('waiting'))).toBeNull();
  });

  it('sends the chosen mail to a real SMTP server with Dagu’s subject', async () => {
    sink = await startSmtpSink();
    const error = await notifyRun(
      mailDag(sink.port, { failure: true, success: false }),
      run('failed', 'failed'),
      '/logs',
    );
    expect(error).toBeNull();
    const [mail] = await sink.waitForMessages(1);
    expect(mail).toMatchObject({ subject: '[ERR] etl (failed)', to: ['ops@x.io'] });
  });

  it('reports a mail that cannot be delivered instead of throwing', async () => {
    sink = await startSmtpSink();
    const port = sink.port;
    await sink.close();
    sink = null;
    const error = await notifyRun(
      mailDag(port, { failure: true, success: false }),
      run('failed', 'failed'),
      '/logs',
    );
    expect(error).toMatch(/^mail: /);
  });
});
