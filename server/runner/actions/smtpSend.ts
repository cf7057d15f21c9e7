// Sends one mail through the DAG's `smtp` server with nodemailer, as Dagu's mailer does: no TLS and no
// login when no username or password is set; with them, STARTTLS when the server offers it (required
// unless the server is this host) and then login. The whole exchange is bounded by a timeout and ends at
// once when the step is stopped.

import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SmtpSpec } from '../../core/types';
import { loadNodemailer } from './loadNodemailer';

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
  const transport = loadNodemailer().createTransport({
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
  // nodemailer closes the connection when this signal fires: at a stop, or when the whole exchange
  // has taken longer than the timeout.
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    await transport.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      html: mail.html,
      attachments: attachments.map((path) => ({ filename: basename(path), path })),
      signal,
    });
  } catch (e) {
    const why = options.signal?.aborted
      ? 'stopped'
      : deadline.aborted
        ? `no answer within ${timeoutMs / 1000}s`
        : (e as Error).message;
    throw new Error(`${where}: ${why}`, { cause: e });
  } finally {
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
