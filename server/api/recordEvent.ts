// The audit event an operation appends once its work is done (a run queued, a stop signalled). A storage
// error there (a full disk) must not turn a done operation into a failure: its caller would be told that
// nothing happened, and might do it again. The event is lost and logged instead.

import type { Services } from './services';

/** Appends `type`; a failure is logged as a warning, never thrown. */
export async function recordEvent(
  svc: Pick<Services, 'events' | 'logger'>,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  try {
    await svc.events.append(type, data);
  } catch (err) {
    svc.logger.warn('Could not record an event; the operation itself was done', {
      type,
      ...('run_id' in data ? { run_id: data.run_id } : {}),
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
