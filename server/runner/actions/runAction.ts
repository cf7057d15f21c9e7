// The entry point the runner calls for a step whose action is not a shell command: dispatches to the
// in-process implementations of Dagu's `http`, `jq`, `mail`, `log`, `noop`, `file.*` and `wait.*` actions.

import type { StepAction } from '../../core/types';
import { runFileAction } from './fileAction';
import { runHttpAction } from './httpAction';
import { runJqAction } from './jqAction';
import { runMailAction } from './mailAction';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';
import { runWaitAction } from './waitAction';

/** The actions this module runs; `command`, `exec` and `dag` belong to the runner itself. */
export type InProcessAction = Extract<StepAction, { kind: InProcessKind }>;

type InProcessKind = 'http' | 'jq' | 'mail' | 'log' | 'noop' | 'file' | 'wait';
const IN_PROCESS_KINDS: readonly string[] = [
  'http',
  'jq',
  'mail',
  'log',
  'noop',
  'file',
  'wait',
] satisfies InProcessKind[];

export function isInProcessAction(action: StepAction | undefined): action is InProcessAction {
  return action !== undefined && IN_PROCESS_KINDS.includes(action.kind);
}

/**
 * Runs one action to its end. Expected failures (bad `with` values, a non-2xx answer, an SMTP error, a
 * missing file, a stop) come back as `{ exitCode: 1, error }`; only a bug or a failing log file rejects.
 */
export async function runAction(action: InProcessAction, ctx: ActionContext): Promise<ActionResult> {
  if (ctx.signal.aborted) return actionFailed(`${action.kind}: stopped before it started`);
  switch (action.kind) {
    case 'http':
      return runHttpAction(ctx);
    case 'jq':
      return runJqAction(ctx);
    case 'mail':
      return runMailAction(ctx);
    case 'log':
      return runLogAction(ctx);
    case 'noop':
      return ACTION_OK;
    case 'file':
      return runFileAction(action.op, ctx);
    case 'wait':
      return runWaitAction(action.op, ctx);
  }
}

/** `log.write`: the message on stdout, with a line break added unless it ends with one. */
async function runLogAction(ctx: ActionContext): Promise<ActionResult> {
  const message = ctx.with.message;
  if (message === undefined || message === null) return actionFailed('log: with.message is required');
  if (typeof message !== 'string') return actionFailed('log: with.message must be text');
  await sinkWriter(ctx.stdout)(message.endsWith('\n') ? message : `${message}\n`);
  return ACTION_OK;
}
