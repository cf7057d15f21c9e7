// Schemas of the bodies workers send to the coordinator (protocol.ts), checked before anything is stored:
// names that become paths are matched against their patterns, sizes are bounded.

import { z } from 'zod';
import { DAG_NAME_PATTERN, RUN_ID_PATTERN } from '../core/names';
import { RUN_STATES, STEP_STATES } from '../core/runStates';
import type { RunStatus, StepStatus } from '../core/types';
import { WORKER_ID_PATTERN } from '../core/workerId';
import type {
  AckRequest,
  DispatchRequest,
  HeartbeatRequest,
  LeaveRequest,
  LogBatch,
  LogChunk,
  ArtifactRequest,
  PollRequest,
  StateRequest,
  StatusReport,
} from './protocol';
import { MAX_ARTIFACT_BYTES } from '../store/artifactStore';
import { MAX_STATE_LIST_LIMIT, MAX_STATE_VALUE_BYTES, STATE_SCOPES } from '../store/stateStore';

/** Log file names inside an attempt's log directory: no separators, never `.` or `..`. */
export const LOG_FILE_PATTERN = /^[A-Za-z0-9_.-]{1,200}$/;

const workerId = z.string().regex(WORKER_ID_PATTERN, 'not a valid worker ID');
const runId = z.string().regex(RUN_ID_PATTERN, 'not a valid run ID');
const dagName = z
  .string()
  .regex(DAG_NAME_PATTERN, 'not a valid DAG name')
  .refine((v) => !v.includes('..') && !/\.ya?ml$/i.test(v), 'not a valid DAG name');
const attempt = z.number().int().min(1).max(999_999_999);
const labels = z
  .record(z.string().min(1).max(100), z.string().max(200))
  .refine((v) => Object.keys(v).length <= 64, 'at most 64 labels');
const text = z.string().max(10_000);
const iso = z.string().max(64);
const stepName = z.string().min(1).max(1000);
const runs = z.array(z.strictObject({ run_id: runId, attempt })).max(10_000);

export const heartbeatSchema: z.ZodType<HeartbeatRequest> = z.object({
  worker_id: workerId,
  labels,
  max_active_runs: z.number().int().min(0).max(100_000),
  running: runs,
  host: z.string().max(255),
  pid: z.number().int().min(0),
});

export const leaveSchema: z.ZodType<LeaveRequest> = z.object({ worker_id: workerId });

export const pollSchema: z.ZodType<PollRequest> = z.object({
  worker_id: workerId,
  labels,
  wait_ms: z.number().int().min(0),
});

export const ackSchema: z.ZodType<AckRequest> = z.object({
  worker_id: workerId,
  token: z.string().min(1).max(200),
});

const runState = z.enum(RUN_STATES);
const shortText = z.string().max(4096);

// Every field of StepStatus: a field left out here would be dropped from what the worker reports (an object
// schema strips keys it does not know), and the stored run would lose it (the console's repeat counts and
// skip reasons, a resumed attempt's outputs, a human task's record).
const stepStatus = z.object({
  name: z.string().max(1000),
  status: z.enum(STEP_STATES),
  started_at: iso.nullable(),
  finished_at: iso.nullable(),
  exit_code: z.number().int().nullable(),
  error: text.nullable(),
  retry_count: z.number().int().min(0),
  stdout: shortText.nullable(),
  stderr: shortText.nullable(),
  output: z.record(z.string(), z.string()).nullable(),
  outputs: z.record(z.string(), z.string()).nullable().optional(),
  output_value: z.string().nullable().optional(),
  published_outputs: z.record(z.string(), z.unknown()).nullable().optional(),
  repeat_count: z.number().int().min(0).optional(),
  executions: z
    .array(
      z.object({
        kind: z.enum(['first', 'retry', 'repeat']),
        started_at: iso,
        finished_at: iso.nullable(),
        exit_code: z.number().int().nullable(),
      }),
    )
    .max(1000)
    .optional(),
  skip_reason: text.nullable().optional(),
  foreach_items: z
    .array(
      z.object({
        index: z.number().int().min(0),
        key: shortText,
        label: text,
        status: z.enum(['not_started', 'running', 'succeeded', 'failed']),
        error: text.optional(),
      }),
    )
    .max(100_000)
    .optional(),
  human_task: z
    .object({
      id: z.string().max(1000),
      prompt: text,
      max_size: z.number().int().min(0),
      form: z.record(z.string(), z.unknown()).nullable(),
      input: z.record(z.string(), z.unknown()).optional(),
      completed_at: iso.optional(),
    })
    .optional(),
  approval: z
    .object({
      prompt: text,
      input: z.array(z.string().max(1000)).max(1000),
      required: z.array(z.string().max(1000)).max(1000),
      rewind_to: z.string().max(1000).nullable(),
      approved_at: iso.optional(),
      inputs: z.record(z.string(), text).optional(),
      rejected_at: iso.optional(),
      reason: text.optional(),
    })
    .optional(),
  push_back: z
    .object({
      iteration: z.number().int().min(0),
      inputs: z.record(z.string(), text).optional(),
      history: z
        .array(
          z.object({
            iteration: z.number().int().min(0),
            at: iso,
            inputs: z.record(z.string(), text).optional(),
          }),
        )
        .max(10_000),
      previous_stdout: shortText.nullable().optional(),
    })
    .optional(),
  sub_runs: z
    .array(
      z.object({
        dag_name: dagName,
        run_id: runId,
        status: runState.nullable(),
        item: text.optional(),
      }),
    )
    .max(100_000)
    .optional(),
  depends: z.array(z.string().max(1000)).max(1000).optional(),
}) as z.ZodType<StepStatus>;

const condition = z.object({
  type: z.string().max(100),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().max(100),
  message: z.string().max(1000),
  checked_at: iso,
});

const runStatus: z.ZodType<RunStatus> = z.object({
  version: z.literal(1),
  dag_name: dagName,
  run_id: runId,
  attempt,
  status: runState,
  trigger_type: z.enum(['scheduler', 'manual', 'catchup', 'retry', 'subdag', 'queue']),
  schedule_time: iso.nullable(),
  queue: z.string().max(64),
  params: z.array(z.string()),
  created_at: iso,
  queued_at: iso.nullable(),
  started_at: iso.nullable(),
  finished_at: iso.nullable(),
  pid: z.number().int().nullable(),
  host: z.string().max(255).nullable(),
  worker_id: z.string().max(128).nullable(),
  error: text.nullable(),
  steps: z.array(stepStatus).max(10_000),
  handlers: z.object({
    init: stepStatus.optional(),
    success: stepStatus.optional(),
    failure: stepStatus.optional(),
    abort: stepStatus.optional(),
    exit: stepStatus.optional(),
    wait: stepStatus.optional(),
  }),
  conditions: z.array(condition).max(20),
  worker_selector: z.record(z.string(), z.string()).nullable(),
  log_dir: z.string().max(4096),
  dispatched_by: z.string().max(200).nullable().optional(),
});

const logPiece = {
  file: z
    .string()
    .regex(LOG_FILE_PATTERN, 'use 1 to 200 letters, digits, "_", "." or "-"')
    .refine((v) => v !== '.' && v !== '..', 'not a file name'),
  offset: z.number().int().min(0),
  data: z.string(),
  encoding: z.enum(['utf8', 'base64']),
};

export const logChunkSchema: z.ZodType<LogChunk> = z.object({ worker_id: workerId, attempt, ...logPiece });

/** Files of one attempt at most in a LogBatch (a step has two logs; the run one more). */
export const MAX_LOG_BATCH_FILES = 64;

const logPieces = z
  .array(z.object(logPiece))
  .min(1)
  .max(MAX_LOG_BATCH_FILES)
  .refine((c) => new Set(c.map((x) => x.file)).size === c.length, 'names a file twice');

export const statusReportSchema: z.ZodType<StatusReport> = z.object({
  worker_id: workerId,
  status: runStatus,
  logs: logPieces.optional(),
});

export const logBatchSchema: z.ZodType<LogBatch> = z.object({
  worker_id: workerId,
  attempt,
  chunks: logPieces,
});

export const dispatchRequestSchema: z.ZodType<DispatchRequest> = z.object({
  dag_name: dagName,
  run_id: runId,
  // Parameters become arguments of the run process, which cannot carry a NUL (spawn would throw).
  params: z
    .array(
      z
        .string()
        .max(4096)
        .refine((v) => !v.includes('\0'), 'a parameter cannot contain a NUL character'),
    )
    .max(100),
  worker_selector: labels.nullable(),
  parent: z.object({ run_id: runId, dag_name: dagName, step: z.string().min(1).max(1000) }).nullable(),
  retry: z
    .object({
      attempt,
      step: stepName,
      downstream: z.boolean(),
      path: z
        .object({
          hops: z
            .array(z.object({ step: stepName, run_id: runId }))
            .min(1)
            .max(100),
          step: stepName,
          downstream: z.boolean(),
        })
        .nullable(),
    })
    .optional(),
});

// The store checks names and sizes itself (with Dagu's messages, which the step prints); these bounds only
// keep a request from making the coordinator hold more than the largest legal value.
const stateText = z.string().max(4096);
const stateRef = z.strictObject({ scope: z.enum(STATE_SCOPES), namespace: stateText, key: stateText });
const stateBase = { worker_id: workerId, attempt };

export const stateRequestSchema: z.ZodType<StateRequest> = z.discriminatedUnion('op', [
  z.strictObject({ ...stateBase, op: z.literal('get'), ref: stateRef }),
  z.strictObject({
    ...stateBase,
    op: z.literal('put'),
    ref: stateRef,
    value: z.string().max(MAX_STATE_VALUE_BYTES),
    expected_version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    create_only: z.boolean().optional(),
    updated_by: z
      .strictObject({
        dag_name: z.string().max(1000).optional(),
        dag_run_id: z.string().max(1000).optional(),
        step_name: z.string().max(1000).optional(),
      })
      .nullable()
      .optional(),
  }),
  z.strictObject({ ...stateBase, op: z.literal('delete'), ref: stateRef }),
  z.strictObject({
    ...stateBase,
    op: z.literal('list'),
    scope: z.enum(STATE_SCOPES),
    namespace: stateText,
    key_prefix: stateText,
    limit: z.number().int().min(0).max(MAX_STATE_LIST_LIMIT),
  }),
]);

// Paths are checked by the store (with its own messages); the data is base64 of at most the largest artifact.
const artifactPath = z.string().min(1).max(4096);
const artifactBase = { worker_id: workerId, attempt };

export const artifactRequestSchema: z.ZodType<ArtifactRequest> = z.discriminatedUnion('op', [
  z.strictObject({ ...artifactBase, op: z.literal('list') }),
  z.strictObject({ ...artifactBase, op: z.literal('read'), path: artifactPath }),
  z.strictObject({
    ...artifactBase,
    op: z.literal('put'),
    path: artifactPath,
    data: z.base64().max(Math.ceil(MAX_ARTIFACT_BYTES / 3) * 4),
  }),
]);
