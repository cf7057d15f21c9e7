// A real SMTP server for tests, on a free local port: it accepts every mail (optionally only after a
// login) and keeps each one parsed, so a test can check what a step or a run notification sent.

import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One received mail. */
export interface SunkMail {
  /** SMTP envelope: MAIL FROM and RCPT TO addresses. */
  envelope: { from: string; to: string[] };
  from: string;
  to: string[];
  subject: string;
  /** The HTML body, or '' when the mail had none. */
  html: string;
  text: string;
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
  /** The user name the client logged in with, or null. */
  user: string | null;
}

export interface SmtpSink {
  port: number;
  /** Mails received so far, in order. */
  messages: SunkMail[];
  /** Resolves when at least `count` mails have arrived; rejects after `timeoutMs`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<SunkMail[]>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Require a login with this user and password (LOGIN or PLAIN, over plain text on localhost). */
  auth?: { user: string; pass: string };
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list.flatMap((a) => a.value.map((v) => v.address ?? '')).filter(Boolean);
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: SunkMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    // No certificate here: STARTTLS is not offered, and a login is allowed over plain text.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: options.auth === undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          messages.push({
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            from: addresses(parsed.from)[0] ?? '',
            to: addresses(parsed.to),
            subject: parsed.subject ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            text: parsed.text ?? '',
            attachments: parsed.attachments.map((a) => ({
              filename: a.filename ?? '',
              contentType: a.contentType,
              content: a.content,
            })),
            user: typeof session.user === 'string' ? session.user : null,
          });
          for (const wake of waiters.splice(0)) wake();
          callback();
        },
        (e: Error) => callback(e),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    port,
    messages,
    async waitForMessages(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`SMTP sink: ${messages.length} of ${count} mails after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
