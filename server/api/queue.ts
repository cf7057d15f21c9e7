// Queue operations: enqueue a DAG run, dequeue a queued run, and list what waits in each queue.

import { randomHex } from '../store/randomHex';
import { assertRunId } from '../core/names';
import { newRunId } from '../core/runId';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { RunCondition, RunStatus, TriggerType } from '../core/types';
import { ConflictError } from './errors';
import { requireDag } from './requireDag';
import { getRun } from './runs';
import type { Services } from './services';

export interface EnqueueOptions {
  runId?: string;
  triggerType?: TriggerType;
  /** RFC 3339 UTC slot time, for catch-up runs. */
  scheduleTime?: string | null;
}

/** Text of the error `enqueue` fails with when queues are turned off. */
export const QUEUES_DISABLED = 'queues are disabled (queues.enabled: false)';

/**
 * Records a run as `queued` and puts it in its DAG's queue; the active scheduler starts it when the queue
 * has room. The run record comes first so a queue item never points at nothing.
 */
export async function enqueueDag(
  svc: Services,
  dagName: string,
  params: string[],
  opts: EnqueueOptions = {},
): Promise<RunStatus> {
  if (!svc.config.queues.enabled) throw new ConflictError(QUEUES_DISABLED);
  const dag = await requireDag(svc, dagName);
  const nowMs = svc.clock.nowMs();
  const runId = opts.runId !== undefined ? assertRunId(opts.runId) : newRunId(nowMs, randomHex(4));
  const now = isoUtc(nowMs);
  const status = newRunStatus({
    dag,
    runId,
    status: 'queued',
    triggerType: opts.triggerType ?? 'manual',
    scheduleTime: opts.scheduleTime ?? null,
    params: [...params],
    nowIso: now,
  });
  const created = await svc.runs.createRun(status);
  if (!created.created) throw new ConflictError(`run ${runId} already exists`);
  await svc.runs.markActive({ run_id: runId, dag_name: dag.name, queue: dag.queue });
  await svc.queue.enqueue({ queue: dag.queue, run_id: runId, dag_name: dag.name, enqueued_at: now });
  await svc.events.append('run:enqueued', { run_id: runId, dag: dag.name, queue: dag.queue });
  svc.logger.info('Run enqueued', { dag: dag.name, run_id: runId, queue: dag.queue });
  return status;
}

/** Removes a queued run from its queue; the run ends `aborted` with the error "dequeued by user". */
export async function dequeueRun(svc: Services, runId: string): Promise<RunStatus> {
  const status = await getRun(svc, runId);
  if (status.status !== 'queued') {
    throw new ConflictError(`run ${runId} is not queued (status: ${status.status})`);
  }
  await svc.queue.dequeue(status.queue, runId);
  // The scheduler may have started the run between our read and the removal: only a run that is still
  // queued once its item is gone is aborted here. (A run process that read `queued` just before this write
  // can still overwrite it; the runner re-checks the record when it takes over a queued run.)
  const latest = await getRun(svc, runId);
  if (latest.status !== 'queued') {
    throw new ConflictError(`run ${runId} started before it could be dequeued (status: ${latest.status})`);
  }
  const aborted: RunStatus = {
    ...latest,
    status: 'aborted',
    error: 'dequeued by user',
    finished_at: isoUtc(svc.clock.nowMs()),
    conditions: [],
  };
  await svc.runs.writeStatus(aborted);
  await svc.runs.unmarkActive(runId);
  await svc.events.append('run:dequeued', { run_id: runId, dag: latest.dag_name, queue: latest.queue });
  svc.logger.info('Run dequeued', { dag: latest.dag_name, run_id: runId, queue: latest.queue });
  return aborted;
}

/** One queued run as the queue view shows it. */
export interface QueuedRunView {
  /** 1 for the run that starts next. */
  position: number;
  run_id: string;
  dag_name: string;
  enqueued_at: string;
  queued_at: string | null;
  trigger_type: TriggerType | null;
  schedule_time: string | null;
  params: string[];
  /** Why the run still waits, as the scheduler last saw it. */
  conditions: RunCondition[];
  /** Error text when the run record is missing or unreadable. */
  problem: string | null;
}

export interface QueueView {
  name: string;
  /** From `queues.config[]`; null when the queue uses its DAG's `max_active_runs`. */
  max_concurrency: number | null;
  /** Runs of this queue currently running. */
  running: number;
  items: QueuedRunView[];
}

export interface QueueListing {
  enabled: boolean;
  queues: QueueView[];
}

/** Every queue that has queued runs or a configured limit, oldest item first. */
export async function listQueue(svc: Services): Promise<QueueListing> {
  const names = new Set([...svc.config.queues.config.map((q) => q.name), ...(await svc.queue.queues())]);
  const active = await svc.runs.listActive();
  const queues: QueueView[] = [];
  for (const name of [...names].sort()) {
    const items = await svc.queue.list(name);
    const queuedIds = new Set(items.map((i) => i.run_id));
    const views: QueuedRunView[] = [];
    for (const [index, item] of items.entries()) {
      const read = await svc.runs.readStatus(item.run_id);
      const status = read.kind === 'ok' ? read.status : null;
      views.push({
        position: index + 1,
        run_id: item.run_id,
        dag_name: item.dag_name,
        enqueued_at: item.enqueued_at,
        queued_at: status?.queued_at ?? null,
        trigger_type: status?.trigger_type ?? null,
        schedule_time: status?.schedule_time ?? null,
        params: status?.params ?? [],
        conditions: status?.conditions ?? [],
        problem:
          read.kind === 'missing'
            ? 'run record not found'
            : read.kind === 'corrupt'
              ? `corrupt status file: ${read.error}`
              : null,
      });
    }
    let running = 0;
    for (const a of active) {
      if (a.queue !== name || queuedIds.has(a.run_id)) continue;
      const read = await svc.runs.readStatus(a.run_id);
      if (read.kind === 'ok' && read.status.status === 'running') running += 1;
    }
    const configured = svc.config.queues.config.find((q) => q.name === name);
    queues.push({ name, max_concurrency: configured?.max_concurrency ?? null, running, items: views });
  }
  return { enabled: svc.config.queues.enabled, queues };
}
