// The entry point the runner calls for a step whose action is not a shell command: dispatches to the
// in-process implementations of Dagu's `http`, `jq`, `mail`, `log`, `noop`, `file.*`, `wait.*`,
// `router.route`, `outputs.write`, `data.*`, `template.render`, `git.*`, `state.*`, `archive.*` and `artifact.*` actions.

// Each action's module is loaded when a step first uses it: they bring Node's http, tls, crypto and worker
// modules, which a run of shell steps alone (nearly every run) should not pay for at start.

import type { StepAction } from '../../core/types';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

/** The actions this module runs; `command`, `exec` and `dag` belong to the runner itself. */
export type InProcessAction = Extract<StepAction, { kind: InProcessKind }>;

type InProcessKind =
  | 'http'
  | 'jq'
  | 'mail'
  | 'log'
  | 'noop'
  | 'file'
  | 'wait'
  | 'router'
  | 'outputs'
  | 'data'
  | 'template'
  | 'git'
  | 'state'
  | 'archive'
  | 'artifact';
const IN_PROCESS_KINDS: readonly string[] = [
  'http',
  'jq',
  'mail',
  'log',
  'noop',
  'file',
  'wait',
  'router',
  'outputs',
  'data',
  'template',
  'git',
  'state',
  'archive',
  'artifact',
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
      return (await import('./httpAction')).runHttpAction(ctx);
    case 'jq':
      return (await import('./jqAction')).runJqAction(ctx);
    case 'mail':
      return (await import('./mailAction')).runMailAction(ctx);
    case 'log':
      return runLogAction(ctx);
    case 'noop':
      return ACTION_OK;
    case 'file':
      return (await import('./fileAction')).runFileAction(action.op, ctx);
    case 'wait':
      return (await import('./waitAction')).runWaitAction(action.op, ctx);
    case 'router':
      return runRouterAction(action, ctx);
    case 'outputs':
      return runOutputsWrite(ctx);
    case 'data':
      return (await import('./dataAction')).runDataAction(action.op, ctx);
    case 'template':
      return (await import('./templateAction')).runTemplateAction(ctx);
    case 'git':
      return (await import('./gitAction')).runGitAction(action.op, ctx);
    case 'state':
      return (await import('./stateAction')).runStateAction(action.op, ctx);
    case 'archive':
      return (await import('./archiveAction')).runArchiveAction(action.op, ctx);
    case 'artifact':
      return (await import('./artifactAction')).runArtifactAction(action.op, ctx);
  }
}

/**
 * `outputs.write`: `with.values` (value-resolved) become the step's published outputs, read by later steps as
 * `${steps.<id>.outputs.<name>}` and by a calling DAG's step as the child's outputs. Nothing is printed.
 */
function runOutputsWrite(ctx: ActionContext): ActionResult {
  const values = ctx.with.values;
  if (!values || typeof values !== 'object' || Array.isArray(values))
    return actionFailed('outputs: values must be an object');
  return { ...ACTION_OK, outputs: { ...(values as Record<string, unknown>) } };
}

/**
 * `router.route`: the targets' preconditions do the routing; the step prints what it routes on and its routes,
 * as Dagu's router does (`Router evaluating: <value as written>`, then `  <pattern> -> [<targets>]`).
 */
async function runRouterAction(
  action: Extract<InProcessAction, { kind: 'router' }>,
  ctx: ActionContext,
): Promise<ActionResult> {
  const lines = [`Router evaluating: ${action.value}`];
  for (const route of action.routes) lines.push(`  ${route.pattern} -> [${route.targets.join(' ')}]`);
  await sinkWriter(ctx.stdout)(`${lines.join('\n')}\n`);
  return ACTION_OK;
}

/** `log.write`: the message on stdout, with a line break added unless it ends with one. */
async function runLogAction(ctx: ActionContext): Promise<ActionResult> {
  const message = ctx.with.message;
  if (message === undefined || message === null) return actionFailed('log: with.message is required');
  if (typeof message !== 'string') return actionFailed('log: with.message must be text');
  await sinkWriter(ctx.stdout)(message.endsWith('\n') ? message : `${message}\n`);
  return ACTION_OK;
}
