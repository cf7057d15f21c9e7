// `dagu start`: runs one DAG run in the foreground; SIGINT/SIGTERM abort it (steps get the signal first).

import { randomHex } from '../../store/randomHex';
import { systemClock } from '../../core/clock';
import { assertRunId } from '../../core/names';
import { newRunId } from '../../core/runId';
import type { RunStatus, TriggerType } from '../../core/types';
import { runWithRetries } from '../../runner/runWithRetries';
import { startRun } from '../../runner/startRun';
import { FileRunStore } from '../../store/fileRunStore';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { loadDagOrThrow } from '../loadDagOrThrow';

interface StartOptions extends GlobalOptions {
  runId?: string;
  triggerType: TriggerType;
  scheduleTime?: string;
}

export async function startCommand(dagArg: string, params: string[], opts: StartOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'runner' });
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const scheduleTime = opts.scheduleTime ? normalizeTime(opts.scheduleTime) : null;
  const dag = await loadDagOrThrow(config, dagArg);
  const runStore = new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir });

  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    logger.warn('Stopping the run', { signal: sig, dag: dag.name });
    controller.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const ctx = {
      dag,
      runStore,
      config,
      clock: systemClock,
      logger: logger.child({ dag: dag.name }),
      signal: controller.signal,
    };
    const final = await runWithRetries(ctx, () =>
      startRun({
        ...ctx,
        runId: opts.runId,
        triggerType: opts.triggerType,
        scheduleTime,
        params,
        newRunId: () => newRunId(Date.now(), randomHex(4)),
      }),
    );
    if (!opts.quiet) printSummary(final);
    return final.status === 'succeeded' || final.status === 'partially_succeeded' ? EXIT_OK : EXIT_RUN_FAILED;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function normalizeTime(text: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UsageError(`--schedule-time: ${JSON.stringify(text)} is not an RFC 3339 time`);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

export function printSummary(s: RunStatus): void {
  const lines = [`${s.dag_name} ${s.run_id} (attempt ${s.attempt}): ${s.status}`];
  for (const step of s.steps) {
    lines.push(
      `  ${step.status.padEnd(10)} ${step.name}${step.exit_code !== null && step.exit_code !== 0 ? ` (exit ${step.exit_code})` : ''}`,
    );
  }
  if (s.error) lines.push(`  error: ${s.error}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
