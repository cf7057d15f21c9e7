// The contract between the runner and the step types this product runs in-process (Dagu's `http`, `jq`,
// `mail`, `log`, `noop`, `file.*` and `wait.*` actions): what an action is given, and what it reports back.

import type { Writable } from 'node:stream';
import type { Clock } from '../../core/ports';
import type { SmtpSpec } from '../../core/types';
import type { StateAccess } from './stateAction';

/** Where an action writes: an open file descriptor (a step log file) or a writable stream. */
export type ActionSink = number | Writable;

/** Everything one action execution needs. */
export interface ActionContext {
  /** The step's `with` map, already value-resolved by the runner (Dagu's keys as written). */
  with: Record<string, unknown>;
  /** The legacy `command` entries (value-resolved): `GET https://...` for `type: http`, the filter for `jq`. */
  command: string[] | null;
  /**
   * The legacy `script` (value-resolved): JSON config for `type: http`, the input JSON for `type: jq`; a
   * template step's template text, as written (never value-resolved).
   */
  script: string | null;
  /** The step's stdout; what `output:` captures. */
  stdout: ActionSink;
  /** The step's stderr. */
  stderr: ActionSink;
  /** Aborted when the step is stopped or times out; the action ends promptly with a failure. */
  signal: AbortSignal;
  /** The DAG's `smtp` block, for `mail`. */
  smtp: SmtpSpec | null;
  /** The step's working directory: relative `output`, `files`, `input` and attachment paths start here. */
  workingDir: string;
  /** The step's environment; `file.*` reads `HOME` from it to expand a leading `~`. */
  env: Record<string, string | undefined>;
  /** The run's clock, for `wait.until` (the wall-clock time it waits for); the system clock when absent. */
  clock?: Clock;
  /** The run's ID, for names derived from the run (`git.worktree.add`'s generated branch). */
  runId?: string;
  /** The step's `id`, else its name: with `runId`, what a generated branch is derived from. */
  stepIdentity?: string;
  /** The step's name, recorded as the writer of a state entry. */
  stepName?: string;
  /** The state store the `state.*` actions use; absent: none in this process. */
  state?: StateAccess;
}

/** How an action ended: exit code 0 and no error when it succeeded. */
export interface ActionResult {
  exitCode: number;
  /** What went wrong, naming the field or the response at fault; null on success. */
  error: string | null;
  /** Values the step publishes as its outputs (`outputs.write`), as `stdout.outputs` does. */
  outputs?: Record<string, unknown>;
  /**
   * Values the step publishes as declared outputs, read as `${steps.<id>.outputs.<name>}` (a git worktree
   * action's fixed outputs, as Dagu publishes them).
   */
  declaredOutputs?: Record<string, string>;
}

/** The successful result. */
export const ACTION_OK: ActionResult = Object.freeze({ exitCode: 0, error: null });

/** A failed result with the given message. */
export function actionFailed(error: string, exitCode = 1): ActionResult {
  return { exitCode, error };
}
