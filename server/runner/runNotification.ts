// The run's `mail_on` notification, sent once an attempt has ended: the error mail when the run carries an
// error or failed (so a partial success gets the error mail, as in Dagu), else the info mail for a success
// or partial success, and the wait mail when the attempt stopped at open human tasks. And a step's
// `mail_on_error`: the error mail when that step fails, sent at once with the run's status of that moment
// (Dagu needs `error_mail` and `smtp` for it, not `mail_on`). A mail that cannot be sent is logged by the
// caller and changes nothing.

import { isAbsolute, join } from 'node:path';
import type { DagSpec, MailSpec, RunStatus, StepStatus } from '../core/types';
import { runExitCode } from './runOutcome';

/** Which mail, if any, a finished run gets. */
export function runMailFor(dag: DagSpec, status: RunStatus): MailSpec | null {
  if (!dag.smtp || !dag.mail_on) return null;
  const carriesError = runExitCode(status) === 1;
  if ((carriesError || status.status === 'failed') && dag.mail_on.failure) return dag.error_mail ?? null;
  const good = status.status === 'succeeded' || status.status === 'partially_succeeded';
  if (good && dag.mail_on.success) return dag.info_mail ?? null;
  if (status.status === 'waiting' && dag.mail_on.wait) return dag.wait_mail ?? null;
  return null;
}

/** Sends the notification `runMailFor` chose; resolves to an error text when it failed, else null. */
export async function notifyRun(dag: DagSpec, status: RunStatus, logRoot: string): Promise<string | null> {
  return sendNotification(dag, runMailFor(dag, status), status, logRoot);
}

/**
 * Sends the error mail for `step`, which failed and has `mail_on_error`; `status` is the run as it is then
 * (still running). Resolves to an error text when it failed, else null; nothing to send is null too.
 */
export async function notifyStepFailure(
  dag: DagSpec,
  status: RunStatus,
  step: StepStatus,
  logRoot: string,
): Promise<string | null> {
  if (step.status !== 'failed') return null;
  return sendNotification(dag, dag.error_mail ?? null, status, logRoot);
}

async function sendNotification(
  dag: DagSpec,
  mail: MailSpec | null,
  status: RunStatus,
  logRoot: string,
): Promise<string | null> {
  if (!mail || !dag.smtp) return null;
  const attachments = mail.attach_logs
    ? status.steps.flatMap((s) =>
        [s.stdout, s.stderr].flatMap((p) => (p ? [isAbsolute(p) ? p : join(logRoot, p)] : [])),
      )
    : [];
  // Loaded only when a mail is due: it brings Node's network and TLS modules.
  const { renderRunMailBody, runMailSubject, sendRunMail } = await import('./actions/runMail');
  const result = await sendRunMail({
    smtp: dag.smtp,
    mail,
    subject: runMailSubject(mail.prefix, dag.name, status.status),
    body: renderRunMailBody(status),
    attachments,
  });
  return result.sent ? null : result.error;
}
