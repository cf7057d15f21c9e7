// Reads Dagu's human task (`action: human.task`): a step that runs nothing and waits for an operator's
// completion. It needs an explicit `id`; `with` holds a non-blank `prompt` and an optional flat `form`
// (core/humanTask.ts). Fields that would run, retry, time out, place or capture something are refused even
// when empty, as Dagu refuses them; so is `type` (the action form only).

import { isNull } from './dagReader';
import type { DagReader, Entry } from './dagReader';
import type { StepExecution } from './readAction';
import { readHumanTaskForm } from '../humanTask';
import type { HumanTaskForm } from '../types';

/** Step keys a human task may not have. */
const HUMAN_TASK_REFUSED = [
  'run',
  'type',
  'exec',
  'command',
  'script',
  'call',
  'config',
  'llm',
  'messages',
  'params',
  'routes',
  'value',
  'shell',
  'shell_args',
  'shell_packages',
  'container',
  'worker_selector',
  'retry_policy',
  'repeat_policy',
  'timeout_sec',
  'signal_on_stop',
  'foreach',
  'parallel',
  'approval',
  'stdout',
  'stderr',
  'log_output',
  'output',
  'output_schema',
  'outputs',
  'mail_on_error',
];

export function readHumanTask(
  r: DagReader,
  map: Map<string, Entry>,
  withEntry: Entry | undefined,
  at: Entry,
  out: StepExecution,
): void {
  out.namePrefix = 'human';
  const before = r.errors.length;
  for (const key of HUMAN_TASK_REFUSED) {
    const e = map.get(key);
    if (e && !(key === 'type' && e === at)) r.errorAt(e, `a human.task step does not take ${key}`);
  }
  if (at.key === 'type') r.errorAt(at, 'write action: human.task (a human task has no legacy type form)');
  const idEntry = map.get('id');
  if (!idEntry || isNull(idEntry.value) || String(r.toJS(idEntry.value)).trim() === '')
    r.errorAt(at, 'a human.task step needs an explicit id (the completion command names it)');
  if (!withEntry || isNull(withEntry.value)) {
    r.errorAt(withEntry ?? at, 'a human.task step needs with.prompt');
    return;
  }
  const fields = r.map(withEntry, ['prompt', 'form'], 'with');
  if (!fields) return;
  const promptEntry = fields.get('prompt');
  let prompt: string | undefined;
  if (!promptEntry) r.errorAt(withEntry, 'with.prompt is required');
  else {
    prompt = r.string(promptEntry);
    if (prompt !== undefined && prompt.trim() === '') r.errorAt(promptEntry, 'must contain a non-blank text');
  }
  let form: HumanTaskForm | null = null;
  const formEntry = fields.get('form');
  if (formEntry) {
    if (isNull(formEntry.value)) r.errorAt(formEntry, 'must be a map (omit form for an acknowledgement)');
    else {
      const read = readHumanTaskForm(r.toJS(formEntry.value));
      if (read.ok) form = read.form;
      else
        for (const p of read.problems)
          r.error(formEntry.value, p.path ? `${formEntry.field}.${p.path}` : formEntry.field, p.message);
    }
  }
  if (r.errors.length === before && prompt !== undefined) out.action = { kind: 'human', prompt, form };
}
