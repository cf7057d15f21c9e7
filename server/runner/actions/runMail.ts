// Run notifications (`mail_on` with `error_mail` / `info_mail`, and a step's `mail_on_error`): the subject
// Dagu gives them, a plain HTML summary of the run, and the send itself. The runner decides when to send.

import type { MailSpec, RunStatus, SmtpSpec, StepStatus } from '../../core/types';
import { sendSmtpMail } from './smtpSend';

/** `<prefix> <dag name> (<status>)`, Dagu's notification subject (no leading space when there is no prefix). */
export function runMailSubject(prefix: string, dagName: string, status: string): string {
  return `${prefix.trim() === '' ? '' : `${prefix.trim()} `}${dagName} (${status})`;
}

export interface RunMail {
  smtp: SmtpSpec;
  /** `error_mail` or `info_mail`: sender, recipients and subject prefix. */
  mail: MailSpec;
  subject: string;
  /** HTML (see renderRunMailBody). */
  body: string;
  /** Absolute paths of step logs, when `attach_logs` is set; missing or empty ones are left out. */
  attachments?: string[];
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Sends a run notification; the outcome is a value, never an exception: a failed mail must not fail a run's bookkeeping. */
export async function sendRunMail(mail: RunMail): Promise<{ sent: true } | { sent: false; error: string }> {
  if (mail.mail.to.length === 0) return { sent: false, error: 'mail: no recipient (to) configured' };
  try {
    await sendSmtpMail(
      mail.smtp,
      {
        from: mail.mail.from,
        to: mail.mail.to,
        subject: mail.subject,
        html: mail.body,
        attachments: mail.attachments ?? [],
      },
      { signal: mail.signal, timeoutMs: mail.timeoutMs },
    );
    return { sent: true };
  } catch (e) {
    return { sent: false, error: `mail: ${(e as Error).message}` };
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function esc(text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function row(cells: Array<string | number | null | undefined>, tag = 'td'): string {
  return `<tr>${cells.map((c) => `<${tag}>${esc(c)}</${tag}>`).join('')}</tr>`;
}

/** An HTML document with the run's facts and one row per step (and handler), every value escaped. */
export function renderRunMailBody(run: RunStatus): string {
  const steps: StepStatus[] = [...run.steps, ...Object.values(run.handlers).filter((h) => h !== undefined)];
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="UTF-8"></head><body>',
    `<h2>${esc(run.dag_name)}: ${esc(run.status)}</h2>`,
    '<table border="1" cellpadding="4" cellspacing="0">',
    row(['Run ID', 'Name', 'Started At', 'Finished At', 'Status', 'Params', 'Error'], 'th'),
    row([
      run.run_id,
      run.dag_name,
      run.started_at,
      run.finished_at,
      run.status,
      run.params.join(' '),
      run.error,
    ]),
    '</table><br />',
    '<table border="1" cellpadding="4" cellspacing="0">',
    row(['#', 'Step', 'Started At', 'Finished At', 'Status', 'Error'], 'th'),
    ...steps.map((s, i) => row([i + 1, s.name, s.started_at, s.finished_at, s.status, s.error])),
    '</table>',
    '</body></html>',
  ].join('\n');
}
