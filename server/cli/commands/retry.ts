// `dagu retry` (a new attempt of a finished run) and `dagu restart` (stop it if running, then a new run of
// the same DAG with the same params), both in the foreground like `dagu start`.

import { randomHex } from '../../store/randomHex';
import { stopRun } from '../../api/operations';
import { createServices } from '../../api/services';
import { systemClock } from '../../core/clock';
import { assertRunId } from '../../core/names';
import { newRunId } from '../../core/runId';
import { TERMINAL_RUN_STATES, type RunStatus } from '../../core/types';
import { SECOND } from '../../core/units';
import { retryRun } from '../../runner/retryRun';
import { startRun } from '../../runner/startRun';
import { FileRunStore } from '../../store/fileRunStore';
import { cliContext, type CliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { loadDagOrThrow } from '../loadDagOrThrow';
import { printSummary } from './start';

type Opts = GlobalOptions & { quiet?: boolean };

async function readRun(store: FileRunStore, runId: string): Promise<RunStatus> {
  const r = await store.readStatus(assertRunId(runId));
  if (r.kind === 'missing') throw new UsageError(`run ${JSON.stringify(runId)} not found`);
  if (r.kind === 'corrupt')
    throw new UsageError(`status of run ${runId} is unreadable (${r.path}): ${r.error}`);
  return r.status;
}

/** Runs `fn` with an AbortController wired to SIGINT/SIGTERM, like `dagu start`. */
async function foreground(ctx: CliContext, fn: (signal: AbortSignal) => Promise<RunStatus>, quiet?: boolean) {
  const controller = new AbortController();
  const on = (sig: NodeJS.Signals) => controller.abort(sig);
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  try {
    const final = await fn(controller.signal);
    if (!quiet) printSummary(final);
    return final.status === 'succeeded' || final.status === 'partially_succeeded' ? EXIT_OK : EXIT_RUN_FAILED;
  } finally {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  }
}

export async function retryCommand(runId: string, opts: Opts): Promise<number> {
  const ctx = cliContext(opts, { component: 'runner' });
  const { config, logger } = ctx;
  const runStore = new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir });
  const previous = await readRun(runStore, runId);
  if (!TERMINAL_RUN_STATES.includes(previous.status))
    throw new UsageError(`run ${runId} is ${previous.status}; only a finished run can be retried`);
  const dag = await loadDagOrThrow(config, previous.dag_name);
  return foreground(
    ctx,
    (signal) =>
      retryRun({ dag, runStore, config, clock: systemClock, logger, signal, runId: previous.run_id }),
    opts.quiet,
  );
}

export async function restartCommand(runId: string, opts: Opts): Promise<number> {
  const ctx = cliContext(opts, { component: 'runner' });
  const { config, logger } = ctx;
  const runStore = new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir });
  let previous = await readRun(runStore, runId);
  if (!TERMINAL_RUN_STATES.includes(previous.status)) {
    await stopRun(createServices(config, logger), runId);
    const deadline = Date.now() + config.run.kill_grace_ms + 10 * SECOND;
    while (!TERMINAL_RUN_STATES.includes(previous.status)) {
      if (Date.now() > deadline)
        throw new UsageError(`run ${runId} did not stop in time; not restarting`, EXIT_RUN_FAILED);
      await new Promise((r) => setTimeout(r, 200));
      previous = await readRun(runStore, runId);
    }
  }
  const dag = await loadDagOrThrow(config, previous.dag_name);
  return foreground(
    ctx,
    (signal) =>
      startRun({
        dag,
        runStore,
        config,
        clock: systemClock,
        logger,
        signal,
        triggerType: 'manual',
        scheduleTime: null,
        params: previous.params,
        newRunId: () => newRunId(Date.now(), randomHex(4)),
      }),
    opts.quiet,
  );
}
