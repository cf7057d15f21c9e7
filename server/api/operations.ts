// Every operation the CLI and the REST API share, in one import.

export { getDag, listDags, type DagDetail, type DagSummary } from './dags';
export { dequeueRun, enqueueDag, QUEUES_DISABLED, type EnqueueOptions } from './queue';
export { listQueue, parseQueueQuery } from './queueListing';
export type { QueueFilter, QueueListing, QueueSummary, WaitingRun } from './queueListing';
export { cancelQueuedRuns, type CancelResult } from './cancelRuns';
export { getOverview, type Overview } from './overview';
export { retryRun, type RetryResult } from './retryRun';
export { getRun, listRuns, compileRunListQuery, viewRun, type RunListParams } from './runs';
export { readRunLog, type LogStream, type StepLog } from './runLogs';
export { startDag, type StartResult } from './startDag';
export { setDagSuspended, type SuspendState } from './suspendDag';
export { dequeueOrCancel, requestStop, stopRun, type StopResult } from './stopRun';
