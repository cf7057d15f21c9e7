// Sends one mail through the DAG's `smtp` server with nodemailer, as Dagu's mailer does: no TLS and no
// login when no username or password is set; with them, STARTTLS when the server offers it (required
// unless the server is this host) and then login. The whole exchange is bounded by a timeout and ends at
// once when the step is stopped.

import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createTransport } from 'nodemailer';
import type { SmtpSpec } from '../../core/types';

/** Dagu gives a mail 30 seconds from connecting to the end of the exchange. */
export const MAIL_TIMEOUT_MS = 30_000;

/** One mail: the body is HTML. Attachments are file paths. */
export interface OutgoingMail {
  from: string;
  to: string[];
  subject: string;
  html: string;
  attachments: string[];
}

export interface SendOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Told about each attachment that is left out (missing, unreadable or empty), as Dagu leaves them out. */
  onSkippedAttachment?: (path: string, reason: string) => void;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

/** Resolves when the server accepted the mail; rejects with an error naming the server and the failure. */
export async function sendSmtpMail(
  smtp: SmtpSpec,
  mail: OutgoingMail,
  options: SendOptions = {},
): Promise<void> {
  const problem = smtpProblem(smtp);
  if (problem) throw new Error(problem);
  const timeoutMs = options.timeoutMs ?? MAIL_TIMEOUT_MS;
  const useAuth = smtp.username !== '' || smtp.password !== '';
  const attachments = await readableAttachments(mail.attachments, options.onSkippedAttachment);
  // A pool of one connection: unlike the plain transport it can be closed mid-exchange, which is how a
  // stop or the timeout ends a send that is waiting on the server.
  const transport = createTransport({
    pool: true,
    maxConnections: 1,
    host: smtp.host,
    port: smtp.port,
    secure: false,
    ignoreTLS: !useAuth,
    requireTLS: useAuth && !LOCAL_HOSTS.has(smtp.host),
    auth: useAuth ? { user: smtp.username, pass: smtp.password } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const where = `SMTP server ${smtp.host}:${smtp.port}`;
  let stopped: string | null = null;
  const stop = (why: string) => {
    stopped ??= why;
    transport.close();
  };
  const timer = setTimeout(() => stop(`no answer within ${timeoutMs / 1000}s`), timeoutMs);
  const onAbort = () => stop('stopped');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (options.signal?.aborted) throw new Error('stopped');
    await transport.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      html: mail.html,
      attachments: attachments.map((path) => ({ filename: basename(path), path })),
    });
  } catch (e) {
    throw new Error(`${where}: ${stopped ?? (e as Error).message}`, { cause: e });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    transport.close();
  }
}

function smtpProblem(smtp: SmtpSpec): string | null {
  if (smtp.host.trim() === '') return 'smtp.host is not set: the DAG needs an smtp block to send mail';
  if (!Number.isInteger(smtp.port) || smtp.port <= 0 || smtp.port > 65535) {
    return `smtp.port: ${smtp.port} is not a TCP port`;
  }
  return null;
}

async function readableAttachments(
  paths: string[],
  onSkipped: SendOptions['onSkippedAttachment'],
): Promise<string[]> {
  const kept: string[] = [];
  for (const path of paths) {
    try {
      const info = await stat(path);
      if (!info.isFile()) onSkipped?.(path, 'not a file');
      else if (info.size === 0) onSkipped?.(path, 'empty');
      else kept.push(path);
    } catch (e) {
      onSkipped?.(path, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
  }
  return kept;
}
