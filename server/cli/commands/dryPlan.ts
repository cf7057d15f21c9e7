// The plan `dagu dry` prints: a DAG's resolved params and its steps in the order they would start, each with
// what it would run and what it waits for. Pure: the DAG and the params come in, lines go out.

import { topoOrder } from '../../core/graph';
import type { DagSpec, StepSpec } from '../../core/types';
import { buildLine, type StepBuildStatus } from '../../core/build/types';

/** What a step would do, in one line (a script shows its first line and how many follow). */
export function describeStepWork(step: StepSpec): string {
  const action = step.action ?? { kind: 'command' as const };
  const parallel = step.parallel ? ' (once per parallel item)' : '';
  switch (action.kind) {
    case 'command': {
      if (step.script !== null) return `script: ${firstLine(step.script)}`;
      const commands = step.command ?? [];
      if (commands.length === 0) return 'nothing (no command)';
      return commands.map((c) => `run: ${firstLine(c)}`).join('; ');
    }
    case 'exec':
      return `exec: ${[action.command, ...action.args].join(' ')}`;
    case 'dag':
      return `${action.mode === 'run' ? 'dag.run' : 'dag.enqueue'}: ${step.call ?? '?'}${parallel}`;
    case 'http':
      return `http.request: ${String(action.with.method ?? 'GET')} ${String(action.with.url ?? '')}`.trim();
    case 'file':
      return `file.${action.op}`;
    case 'wait':
      return `wait.${action.op}`;
    case 'data':
      return `data.${action.op}: ${String(action.with.from ?? '')} -> ${action.op === 'pick' ? String(action.with.select ?? '') : String(action.with.to ?? '')}`;
    case 'jq':
      return 'jq.filter';
    case 'mail':
      return 'mail.send';
    case 'log':
      return 'log.write';
    case 'noop':
      return 'noop';
    case 'human':
      return `human.task: ${firstLine(action.prompt)}`;
    case 'router':
      return `router.route: ${action.value}`;
    case 'foreach': {
      const f = action.foreach;
      const items = f.items_text ?? `${f.items?.length ?? 0} items`;
      return `foreach ${items}: ${f.steps.map((s) => s.name).join(', ')}`;
    }
    case 'template': {
      const target = typeof action.with.output === 'string' ? ` -> ${action.with.output}` : '';
      const source = step.script !== null ? firstLine(step.script) : String(action.with.template_ref ?? '');
      return `template.render: ${source}${target}`;
    }
    case 'outputs':
      return `outputs.write: ${Object.keys((action.with.values as Record<string, unknown> | undefined) ?? {}).join(', ')}`;
    case 'git': {
      const what =
        action.op === 'checkout' ? action.with.repository : (action.with.branch ?? action.with.path);
      return `git.${action.op}${typeof what === 'string' ? `: ${what}` : ''}`;
    }
    case 'state': {
      const what = action.op === 'list' ? action.with.prefix : action.with.key;
      const scope = typeof action.with.scope === 'string' ? action.with.scope : 'dag';
      return `state.${action.op} (${scope})${typeof what === 'string' && what !== '' ? `: ${what}` : ''}`;
    }
    case 'archive': {
      const { source, destination } = action.with;
      const to = typeof destination === 'string' && destination !== '' ? ` -> ${destination}` : '';
      return `archive.${action.op}${typeof source === 'string' ? `: ${source}${to}` : ''}`;
    }
    case 'artifact': {
      const what = action.op === 'list' ? (action.with.pattern ?? action.with.path) : action.with.path;
      return `artifact.${action.op}${typeof what === 'string' && what !== '' ? `: ${what}` : ''}`;
    }
  }
}

function firstLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines.length > 1 ? `${lines[0]} (+${lines.length - 1} lines)` : lines[0];
}

/**
 * The plan's lines, or an error when the steps cannot be ordered (a cycle: `dagu start` would refuse it
 * before any step).
 */
export function dryPlan(
  dag: DagSpec,
  params: readonly string[],
  build?: { specs: readonly StepSpec[]; decisions: ReadonlyMap<string, StepBuildStatus> },
): { ok: true; lines: string[] } | { ok: false; error: string } {
  const ordered = topoOrder(build?.specs ?? dag.steps);
  if (ordered === null)
    return { ok: false, error: `DAG ${dag.name}: its steps depend on each other in a cycle` };
  const lines = [
    `Dry run of ${dag.name}${dag.file ? ` (${dag.file})` : ''}: nothing is run and no run is recorded`,
    `type: ${dag.type ?? 'graph'}`,
    `params: ${params.length > 0 ? params.join(' ') : '(none)'}`,
    `steps, in the order they would start:`,
  ];
  const width = Math.max(...ordered.map((s) => s.name.length));
  ordered.forEach((step, i) => {
    const after = step.depends.length > 0 ? `  after ${step.depends.join(', ')}` : '';
    const gate = step.approval ? '  then waits for approval' : '';
    lines.push(
      `  ${String(i + 1).padStart(2)}. ${step.name.padEnd(width)}  ${describeStepWork(step)}${after}${gate}`,
    );
    // A build DAG: the decision the step would take, as `dagu start` prints it under the step.
    const decision = build?.decisions.get(step.name);
    if (decision) lines.push(`      ${buildLine(decision)}`);
  });
  const handlers = (['init', 'success', 'failure', 'abort', 'exit'] as const).flatMap((event) => {
    const h = dag.handler_on[event];
    return h ? [`  on ${event}: ${describeStepWork(h)}`] : [];
  });
  if (handlers.length > 0) lines.push('handlers:', ...handlers);
  return { ok: true, lines };
}
