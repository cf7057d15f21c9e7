// The shapes of the REST API's answers under the names the console uses. Every type here is derived from
// server/api/openapi.yaml (through the generated components/apiSchema.ts), so the console compiles against
// the API's description: to change a shape, edit the OpenAPI file and run `npm run gen:api`.

import type { components } from './apiSchema';

export type { components, operations, paths } from './apiSchema';

type Schemas = components['schemas'];

export type RunState = Schemas['RunState'];
export type StepState = Schemas['StepState'];
export type TriggerType = Schemas['TriggerType'];
export type Labels = Schemas['Labels'];

/** Every error answer: `{ error: { code, message } }`. */
export type ErrorBody = Schemas['ErrorBody'];

export type RunCondition = Schemas['RunCondition'];
export type StepStatus = Schemas['StepStatus'];

/** GET /api/v1/runs/:id */
export type RunStatus = Schemas['RunStatus'];
export type RunSummary = Schemas['RunSummary'];

/** GET /api/v1/runs?dag=&status=&cursor=&limit= */
export type RunListPage = Schemas['RunListPage'];

/** GET /api/v1/dags */
export type DagList = Schemas['DagList'];
export type DagSummary = Schemas['DagSummary'];
export type SuspendState = Schemas['SuspendState'];

/** GET /api/v1/dags/:name. `dag` is the parsed definition (null when the file has errors). */
export type DagDetail = Schemas['DagDetail'];
export type DagDefinition = Schemas['DagDefinition'];
export type StepSpec = Schemas['StepSpec'];
export type ScheduleSpec = Schemas['ScheduleSpec'];
export type ParamSpec = Schemas['ParamSpec'];
export type RetryPolicy = Schemas['RetryPolicy'];

/** GET /api/v1/run-timings?ids=a,b,c */
export type RunTiming = Schemas['RunTiming'];
export type RunTimings = Schemas['RunTimings'];

/** GET /api/v1/dags/:name/history?limit= */
export type DagHistory = Schemas['DagHistory'];
export type HistoryRun = Schemas['HistoryRun'];
export type HistoryStep = Schemas['HistoryStep'];

/** POST /api/v1/dags/:name/start */
export type StartRequest = Schemas['StartRequest'];
export type StartResult = Schemas['StartResult'];
/** POST /api/v1/dags/:name/enqueue (answers with the queued RunStatus) */
export type EnqueueRequest = Schemas['EnqueueRequest'];

/** How a stop went (the stop route answers with the RunStatus: 200, or 202 when a worker will stop it). */
export type StopResult = Schemas['StopResult'];

/** POST /api/v1/runs/:id/retry (202): a new attempt of a finished run, started like a start of its DAG. */
export type RetryResult = Schemas['RetryResult'];
/** POST /api/v1/runs/:id/human-tasks/:step/complete */
export type HumanTaskCompletionResult = Schemas['HumanTaskCompletionResult'];
/** POST /api/v1/runs/:id/approvals/:step/approve|reject|push-back */
export type ApprovalResult = Schemas['ApprovalResult'];

/** GET /api/v1/runs/:id/logs/:step?stream=stdout|stderr&tail=N */
export type StepLog = Schemas['StepLog'];

// ---- Queue (GET /api/v1/queue?queue=&dag=&selector=&reason=&limit=) ----

/** One run that waits: in a local queue (`queued`), or handed to the workers and not yet claimed. */
export type WaitingRun = Schemas['WaitingRun'];
export type QueueSummary = Schemas['QueueSummary'];
export type QueueListing = Schemas['QueueListing'];

/** POST /api/v1/queue/cancel  body { run_ids: string[] } (1..500) */
export type CancelRequest = Schemas['CancelRequest'];
export type CancelResult = Schemas['CancelResult'];

// ---- Workers (GET /api/v1/workers) ----

export type WorkerRunView = Schemas['WorkerRunView'];
export type WorkerSummary = Schemas['WorkerSummary'];
export type WorkerListing = Schemas['WorkerListing'];

// ---- Overview (GET /api/v1/overview) ----

export type SchedulerInstanceView = Schemas['SchedulerInstanceView'];
export type FailoverView = Schemas['FailoverView'];
export type FailoverSettings = Schemas['FailoverSettings'];
export type SecurityView = Schemas['SecurityView'];
export type Overview = Schemas['Overview'];

// ---- Events (GET /api/v1/events) ----

export type EventRecord = Schemas['EventRecord'];
export type EventListing = Schemas['EventListing'];

/** GET /api/v1/health */
export type Health = Schemas['Health'];

/** GET /api/v1/session (never needs auth): how this server is protected and whether this browser is signed in.
 *  POST /api/v1/session body { token } (auth.token only) sets the HttpOnly cookie `dagu_token`; 401
 *  `unauthorized` when wrong. POST /api/v1/session/logout clears it. */
export type SessionView = Schemas['SessionView'];
export type SignInRequest = Schemas['SignInRequest'];

/** The DAG editor: GET/POST /api/v1/dags/:name/spec, POST .../validate, POST /api/v1/dags, .../rename, .../delete. */
export type DagSpec = Schemas['DagSpec'];
export type DagSpecCheck = Schemas['DagSpecCheck'];
export type SpecDiagnostic = Schemas['SpecDiagnostic'];
export type DagSpecConflict = Schemas['DagSpecConflict'];
export type DagSaveResult = Schemas['DagSaveResult'];
export type DagWriteResult = Schemas['DagWriteResult'];
export type CreateDagRequest = Schemas['CreateDagRequest'];

/** GET /api/v1/runs/:id/log-sources, .../logs/:step/lines, .../log-search (the run page's log console). */
export type LogSources = Schemas['LogSources'];
export type RunArtifacts = Schemas['RunArtifacts'];
export type LogSource = Schemas['LogSource'];
export type LogLinePage = Schemas['LogLinePage'];
export type LogSearchResult = Schemas['LogSearchResult'];
export type LogSearchMatch = Schemas['LogSearchMatch'];

/** GET /api/v1/search?q= */
export type SearchResult = Schemas['SearchResult'];
export type SearchDagHit = Schemas['SearchDagHit'];
export type SearchRunHit = Schemas['SearchRunHit'];
