// The `mail` step type (`action: mail.send`, legacy `type: mail`): sends `message` from `from` to `to`
// (one address or a list) with `subject` and `attachments`, through the DAG's `smtp` server. Like Dagu it
// first writes a summary of the mail to stdout, then `sending email succeed.` (or `error occurred.` on
// stderr).

import { isAbsolute, join } from 'node:path';
import { mailHtml } from './mailBody';
import { sendSmtpMail } from './smtpSend';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';
import { readString, readStringList, WithFieldError } from './withValues';

/** Test seam: a shorter timeout than Dagu's 30 seconds. */
export interface MailActionOptions {
  timeoutMs?: number;
}

export async function runMailAction(
  ctx: ActionContext,
  options: MailActionOptions = {},
): Promise<ActionResult> {
  let from: string, to: string[], subject: string, message: string, attachments: string[];
  try {
    from = readString(ctx.with, 'from');
    to = recipients(ctx.with.to);
    subject = readString(ctx.with, 'subject');
    message = readString(ctx.with, 'message');
    attachments = readStringList(ctx.with, 'attachments').map((p) =>
      isAbsolute(p) ? p : join(ctx.workingDir, p),
    );
  } catch (e) {
    if (e instanceof WithFieldError) return actionFailed(`mail: ${e.message}`);
    throw e;
  }
  if (to.length === 0) return actionFailed('mail: with.to: no recipient given');
  if (!ctx.smtp) return actionFailed('mail: the DAG has no smtp block (host, port) to send mail through');

  const stdout = sinkWriter(ctx.stdout);
  const stderr = sinkWriter(ctx.stderr);
  await stdout(
    `sending email\n-----\nfrom: ${from}\nto: ${to.join(', ')}\nsubject: ${subject}\nmessage: ${message}\n-----\n`,
  );
  const skipped: string[] = [];
  try {
    await sendSmtpMail(
      ctx.smtp,
      { from, to, subject, html: mailHtml(message), attachments },
      {
        signal: ctx.signal,
        timeoutMs: options.timeoutMs,
        onSkippedAttachment: (path, reason) => skipped.push(`attachment '${path}' left out: ${reason}\n`),
      },
    );
  } catch (e) {
    await stderr(skipped.join('') + 'error occurred.');
    return actionFailed(`mail: ${(e as Error).message}`);
  }
  await stderr(skipped.join(''));
  await stdout('sending email succeed.');
  return ACTION_OK;
}

/** `to` as Dagu takes it: one address, or a list whose empty entries are ignored. */
function recipients(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.trim() === '' ? [] : [value];
  if (Array.isArray(value)) {
    return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  }
  throw new WithFieldError('to', value, 'an address or a list of addresses');
}
