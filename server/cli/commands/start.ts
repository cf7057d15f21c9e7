// `dagu start`: runs one DAG run in the foreground; SIGINT/SIGTERM abort it (steps get the signal first).
// A DAG that belongs on the workers is dispatched to them instead and followed to its end.

import { hostname } from 'node:os';
import { randomHex } from '../../store/randomHex';
import { systemClock } from '../../core/clock';
import type { Config } from '../../config/types';
import { isoUtc } from '../../core/runStatus';
import { assertRunId } from '../../core/names';
import { resolveParams } from '../../core/params';
import { newRunId } from '../../core/runId';
import type { DagSpec, TriggerType } from '../../core/types';
import { endedStatus } from '../../coordinator/endedStatus';
import { isDistributed, resolveSelector } from '../../coordinator/dispatcherApi';
import { RunConflictError } from '../../runner/errors';
import type { AttemptContext } from '../../runner/runAttempt';
import { runWithRetries } from '../../runner/runWithRetries';
import { startRun } from '../../runner/startRun';
import type { SubDagRunner } from '../../runner/subDag';
import { cliContext, type GlobalOptions } from '../context';
import { UsageError } from '../exit';
import { loadDagOrThrow } from '../loadDagOrThrow';
import {
  cliSubDagRunner,
  dispatchAndFollow,
  exitCodeOf,
  printSummary,
  runCommandStores,
  type RunCommandStores,
} from './dispatchClient';

export { printSummary } from './dispatchClient';

interface StartOptions extends GlobalOptions {
  runId?: string;
  triggerType: TriggerType;
  scheduleTime?: string;
  /** A dispatched run: return once it is handed over instead of waiting for its end. */
  detach?: boolean;
}

/**
 * What a run attempt on this host gets: AttemptContext and the sub-DAG runner for its call steps (runAttempt
 * hands `subDag` to the engine).
 */
export type LocalRunContext = AttemptContext & { subDag?: SubDagRunner };

export async function startCommand(dagArg: string, params: string[], opts: StartOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'runner' });
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const scheduleTime = opts.scheduleTime ? normalizeTime(opts.scheduleTime) : null;
  const dag = await loadDagOrThrow(config, dagArg);
  const stores = runCommandStores(config, logger);
  if (isDistributed(dag, config.default_execution_mode)) {
    return startDistributed({ config, stores, dag, params, scheduleTime, opts });
  }

  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    logger.warn('Stopping the run', { signal: sig, dag: dag.name });
    controller.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const ctx: LocalRunContext = {
      dag,
      runStore: stores.runs,
      config,
      clock: systemClock,
      logger: logger.child({ dag: dag.name }),
      signal: controller.signal,
      subDag: cliSubDagRunner(config, logger.child({ dag: dag.name }), stores),
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
    return exitCodeOf(final);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * A DAG that goes to the workers: a new run is dispatched (held while no worker matches). A queued run the
 * scheduler created and started this process for is handed over as it is; since nothing else holds it, a
 * refusal ends it `failed` rather than leave it queued with nobody to start it.
 */
async function startDistributed(a: {
  config: Config;
  stores: RunCommandStores;
  dag: DagSpec;
  params: string[];
  scheduleTime: string | null;
  opts: StartOptions;
}): Promise<number> {
  const { config, stores, dag, opts } = a;
  const follow = { config, stores, detach: opts.detach, quiet: opts.quiet };
  const base = {
    dag,
    operation: 'start',
    selector: resolveSelector(dag),
    previous: null,
    parent: null,
  } as const;
  const existing = opts.runId !== undefined ? await stores.runs.readStatus(opts.runId) : null;
  if (existing?.kind === 'corrupt') throw new RunConflictError(opts.runId!, 'corrupt', existing.error);
  if (existing?.kind !== 'ok') {
    return dispatchAndFollow({
      ...follow,
      params: {
        ...base,
        runId: opts.runId ?? newRunId(Date.now(), randomHex(4)),
        triggerType: opts.triggerType,
        params: resolveParams(dag.params, a.params).list,
        scheduleTime: a.scheduleTime,
        fromQueue: false,
      },
    });
  }
  const queued = existing.status;
  if (queued.status !== 'queued') throw new RunConflictError(queued.run_id, queued.status);
  // The scheduler may offer one queued run twice: exactly one process hands it over.
  if (!(await stores.runs.claimAttempt(queued.run_id, queued.attempt, `${hostname()}:${process.pid}`)))
    throw new RunConflictError(queued.run_id, 'claimed');
  return dispatchAndFollow({
    ...follow,
    params: {
      ...base,
      runId: queued.run_id,
      triggerType: queued.trigger_type,
      params: queued.params,
      scheduleTime: queued.schedule_time,
      fromQueue: true,
    },
    onRefused: async (refused) => {
      await stores.runs.writeStatus(
        endedStatus(refused.status ?? queued, 'failed', refused.error, isoUtc(Date.now())),
      );
      await stores.runs.unmarkActive(queued.run_id);
    },
  });
}

function normalizeTime(text: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UsageError(`--schedule-time: ${JSON.stringify(text)} is not an RFC 3339 time`);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
