// Every operation the CLI and the REST API share, in one import.

export { getDag, listDags, type DagDetail, type DagSummary } from './dags';
export { dequeueRun, enqueueDag, listQueue, QUEUES_DISABLED } from './queue';
export type { EnqueueOptions, QueueListing, QueueView, QueuedRunView } from './queue';
export { getRun, listRuns, compileRunListQuery, type RunListParams } from './runs';
export { readRunLog, type LogStream, type StepLog } from './runLogs';
export { startDag, type StartResult } from './startDag';
export { dequeueOrCancel, requestStop, stopRun, type StopResult } from './stopRun';
