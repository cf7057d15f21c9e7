import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../../tests/support/smtpSink';
import { testContext } from './actionTestContext';
import { runMailAction } from './mailAction';

let dir: string;
let sink: SmtpSink | null = null;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-mail-action-'));
});
afterEach(async () => {
  await sink?.close();
  sink = null;
  for (const close of closers.splice(0)) await close();
  await rm(dir, { recursive: true, force: true });
});

const smtpAt = (port: number, username = '', password = '') => ({
  host: '127.0.0.1',
  port,
  username,
  password,
});

/** A TCP server that accepts connections and never says a word: an SMTP server that hangs. */
async function silentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

describe('mail action', () => {
  it("sends the mail through the DAG smtp server and writes Dagu's summary to stdout", async () => {
    sink = await startSmtpSink();
    await writeFile(join(dir, 'report.csv'), 'a,b\n1,2\n');
    const ctx = testContext({
      workingDir: dir,
      smtp: smtpAt(sink.port),
      with: {
        from: 'dagu@example.com',
        to: ['ops@example.com', '', 'dev@example.com'],
        subject: 'Nightly <done>',
        message: 'line one\nline two',
        attachments: ['report.csv'],
      },
    });
    expect(await runMailAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe(
      'sending email\n-----\nfrom: dagu@example.com\nto: ops@example.com, dev@example.com\n' +
        'subject: Nightly <done>\nmessage: line one\nline two\n-----\nsending email succeed.',
    );
    const [mail] = await sink.waitForMessages(1);
    expect(mail).toMatchObject({
      envelope: { from: 'dagu@example.com', to: ['ops@example.com', 'dev@example.com'] },
      from: 'dagu@example.com',
      to: ['ops@example.com', 'dev@example.com'],
      subject: 'Nightly <done>',
      user: null,
    });
    expect(mail!.html).toBe('line one<br />line two');
    expect(mail!.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['report.csv', 'a,b\n1,2\n'],
    ]);
  });

  it('takes a single address in to, and logs in when the smtp block has credentials', async () => {
    sink = await startSmtpSink({ auth: { user: 'bot', pass: 's3cret' } });
    const ctx = testContext({
      smtp: smtpAt(sink.port, 'bot', 's3cret'),
      with: { from: 'a@example.com', to: 'b@example.com', subject: 's', message: 'm' },
    });
    expect(await runMailAction(ctx)).toEqual({ exitCode: 0, error: null });
    const [mail] = await sink.waitForMessages(1);
    expect(mail).toMatchObject({ to: ['b@example.com'], user: 'bot' });
  });

  it("fails with the server's answer when the login is refused", async () => {
    sink = await startSmtpSink({ auth: { user: 'bot', pass: 's3cret' } });
    const ctx = testContext({
      smtp: smtpAt(sink.port, 'bot', 'wrong'),
      with: { from: 'a@example.com', to: 'b@example.com', subject: 's', message: 'm' },
    });
    const result = await runMailAction(ctx);
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(new RegExp(`^mail: SMTP server 127\\.0\\.0\\.1:${sink.port}: .*Invalid`));
    expect(ctx.err.text()).toBe('error occurred.');
    expect(sink.messages).toEqual([]);
  });

  it('leaves out a missing attachment, says so on stderr, and still sends', async () => {
    sink = await startSmtpSink();
    const ctx = testContext({
      workingDir: dir,
      smtp: smtpAt(sink.port),
      with: {
        from: 'a@example.com',
        to: 'b@example.com',
        subject: 's',
        message: 'm',
        attachments: 'gone.log',
      },
    });
    expect(await runMailAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.err.text()).toBe(`attachment '${join(dir, 'gone.log')}' left out: ENOENT\n`);
    const [mail] = await sink.waitForMessages(1);
    expect(mail!.attachments).toEqual([]);
  });

  it('fails quickly and clearly when nothing listens on the smtp port', async () => {
    const port = await silentServer();
    for (const close of closers.splice(0)) await close(); // the port is now closed
    const ctx = testContext({ smtp: smtpAt(port), with: { from: 'a@x.io', to: 'b@x.io', message: 'm' } });
    const result = await runMailAction(ctx);
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(new RegExp(`^mail: SMTP server 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
  });

  it('gives up on a server that never answers once the mail timeout has passed', async () => {
    const port = await silentServer();
    const ctx = testContext({ smtp: smtpAt(port), with: { from: 'a@x.io', to: 'b@x.io', message: 'm' } });
    const started = Date.now();
    const result = await runMailAction(ctx, { timeoutMs: 500 });
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(/^mail: SMTP server 127\.0\.0\.1:\d+: /);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('ends promptly when the step is stopped while the server hangs', async () => {
    const port = await silentServer();
    const stop = new AbortController();
    const ctx = testContext({
      signal: stop.signal,
      smtp: smtpAt(port),
      with: { from: 'a@x.io', to: 'b@x.io', message: 'm' },
    });
    const running = runMailAction(ctx);
    setTimeout(() => stop.abort(), 200);
    const started = Date.now();
    const result = await running;
    expect(result).toEqual({ exitCode: 1, error: `mail: SMTP server 127.0.0.1:${port}: stopped` });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it.each([
    [{ from: 'a@x.io', message: 'm' }, 'mail: with.to: no recipient given'],
    [{ from: 'a@x.io', to: [], message: 'm' }, 'mail: with.to: no recipient given'],
    [
      { from: 'a@x.io', to: { a: 1 }, message: 'm' },
      'mail: with.to: {"a":1} is not an address or a list of addresses',
    ],
    [{ from: 'a@x.io', to: 'b@x.io', attachments: [{}] }, 'mail: with.attachments[0]: {} is not text'],
  ])('refuses bad settings %j', async (settings, error) => {
    const ctx = testContext({ smtp: smtpAt(25), with: settings });
    expect(await runMailAction(ctx)).toEqual({ exitCode: 1, error });
    expect(ctx.out.text()).toBe('');
  });

  it('fails when the DAG has no smtp block, or a bad one', async () => {
    const noSmtp = await runMailAction(testContext({ with: { to: 'b@x.io', message: 'm' } }));
    expect(noSmtp).toEqual({
      exitCode: 1,
      error: 'mail: the DAG has no smtp block (host, port) to send mail through',
    });
    const badPort = await runMailAction(
      testContext({ smtp: smtpAt(0), with: { to: 'b@x.io', message: 'm' } }),
    );
    expect(badPort).toEqual({ exitCode: 1, error: 'mail: smtp.port: 0 is not a TCP port' });
  });
});
