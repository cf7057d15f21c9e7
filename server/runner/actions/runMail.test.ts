import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../../core/types';
import { startSmtpSink, type SmtpSink } from '../../../tests/support/smtpSink';
import { renderRunMailBody, runMailSubject, sendRunMail } from './runMail';

let dir: string;
let sink: SmtpSink | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-run-mail-'));
});
afterEach(async () => {
  await sink?.close();
  sink = null;
  await rm(dir, { recursive: true, force: true });
});

const RUN: RunStatus = {
  version: 1,
  dag_name: 'etl<x>',
  run_id: 'r-1',
  attempt: 1,
  status: 'failed',
  trigger_type: 'manual',
  schedule_time: null,
  queue: 'etl',
  params: ['A=1'],
  created_at: '2026-01-01T00:00:00Z',
  queued_at: null,
  started_at: '2026-01-01T00:00:01Z',
  finished_at: '2026-01-01T00:00:05Z',
  pid: null,
  host: null,
  worker_id: null,
  error: 'step "load" failed',
  steps: [
    {
      name: 'load',
      status: 'failed',
      started_at: '2026-01-01T00:00:01Z',
      finished_at: '2026-01-01T00:00:05Z',
      exit_code: 1,
      error: 'exit status 1 & more',
      retry_count: 0,
      stdout: null,
      stderr: null,
      output: null,
    },
  ],
  handlers: {},
  conditions: [],
  worker_selector: null,
  log_dir: 'etl/r-1',
};

describe('run notification mail', () => {
  it("builds Dagu's subject: prefix, DAG name and status in brackets", () => {
    expect(runMailSubject('[ERROR]', 'etl', 'failed')).toBe('[ERROR] etl (failed)');
    expect(runMailSubject('', 'etl', 'succeeded')).toBe('etl (succeeded)');
  });

  it('renders the run and its steps as HTML with every value escaped', () => {
    const html = renderRunMailBody(RUN);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<h2>etl&lt;x&gt;: failed</h2>');
    expect(html).toContain('<td>exit status 1 &amp; more</td>');
    expect(html).not.toContain('etl<x>');
  });

  it('sends to every recipient of the mail spec, with the logs attached', async () => {
    sink = await startSmtpSink();
    const log = join(dir, 'load.out');
    await writeFile(log, 'loading...\n');
    const result = await sendRunMail({
      smtp: { host: '127.0.0.1', port: sink.port, username: '', password: '' },
      mail: { from: 'dagu@x.io', to: ['a@x.io', 'b@x.io'], prefix: '[ERROR]', attach_logs: true },
      subject: runMailSubject('[ERROR]', RUN.dag_name, RUN.status),
      body: renderRunMailBody(RUN),
      attachments: [log, join(dir, 'never-written.err')],
    });
    expect(result).toEqual({ sent: true });
    const [mail] = await sink.waitForMessages(1);
    expect(mail).toMatchObject({
      from: 'dagu@x.io',
      to: ['a@x.io', 'b@x.io'],
      subject: '[ERROR] etl<x> (failed)',
    });
    expect(mail!.html).toContain('<td>exit status 1 &amp; more</td>');
    expect(mail!.attachments.map((a) => a.filename)).toEqual(['load.out']);
  });

  it('reports a failed send as a value, naming the server', async () => {
    sink = await startSmtpSink();
    const port = sink.port;
    await sink.close();
    sink = null;
    const result = await sendRunMail({
      smtp: { host: '127.0.0.1', port, username: '', password: '' },
      mail: { from: 'dagu@x.io', to: ['a@x.io'], prefix: '', attach_logs: false },
      subject: 's',
      body: 'b',
    });
    expect(result.sent).toBe(false);
    expect(!result.sent && result.error).toMatch(
      new RegExp(`^mail: SMTP server 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    );
  });

  it('does not try to send without recipients', async () => {
    const result = await sendRunMail({
      smtp: { host: '127.0.0.1', port: 25, username: '', password: '' },
      mail: { from: 'dagu@x.io', to: [], prefix: '', attach_logs: false },
      subject: 's',
      body: 'b',
    });
    expect(result).toEqual({ sent: false, error: 'mail: no recipient (to) configured' });
  });
});
