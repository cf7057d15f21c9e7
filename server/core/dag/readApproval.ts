// Reads a step's `approval:` (Dagu's human approval gate): an optional `prompt`, the `input` names an approver
// may give, the `required` subset of them, and `rewind_to`, the step a push-back reruns from. `rewind_to` is
// checked once the steps are linked (resolveRewindTargets): it must name the step itself or a step it depends
// on, directly or not, by name or id.

import { isNull } from './dagReader';
import type { DagReader, Entry } from './dagReader';
import type { ApprovalSpec, StepSpec } from '../types';

const APPROVAL_KEYS = ['prompt', 'input', 'required', 'rewind_to'];

/** A list of non-blank, distinct texts (`input`, `required`), or undefined after an error. */
function readTextList(r: DagReader, entry: Entry | undefined): string[] | undefined {
  if (!entry || isNull(entry.value)) return [];
  const items = r.list(entry, entry.field);
  if (!items) return undefined;
  const out: string[] = [];
  let ok = true;
  for (const item of items) {
    const text = r.string(item);
    if (text === undefined) {
      if (isNull(item.value)) r.errorAt(item, 'must be a string, got nothing');
      ok = false;
    } else if (text.trim() === '') {
      r.errorAt(item, 'must not be empty');
      ok = false;
    } else if (out.includes(text.trim())) {
      r.errorAt(item, `${JSON.stringify(text.trim())} is listed more than once`);
      ok = false;
    } else out.push(text.trim());
  }
  return ok ? out : undefined;
}

/** The `approval` of a step, or undefined when it has none or it has an error (reported). */
export function readApproval(r: DagReader, entry: Entry | undefined): ApprovalSpec | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  const fields = r.map(entry, APPROVAL_KEYS, 'approval');
  if (!fields) return undefined;
  const prompt = r.string(fields.get('prompt')) ?? '';
  const input = readTextList(r, fields.get('input'));
  const required = readTextList(r, fields.get('required'));
  let ok = input !== undefined && required !== undefined;
  if (input && required) {
    for (const name of required) {
      if (!input.includes(name)) {
        r.errorAt(fields.get('required')!, `required field ${JSON.stringify(name)} is not in input list`);
        ok = false;
      }
    }
  }
  const rewindEntry = fields.get('rewind_to');
  let rewindTo: string | null = null;
  if (rewindEntry && !isNull(rewindEntry.value)) {
    const text = r.string(rewindEntry);
    if (text === undefined) ok = false;
    else rewindTo = text.trim() === '' ? null : text.trim();
  }
  if (!ok) return undefined;
  return { prompt, input: input!, required: required!, rewind_to: rewindTo };
}

/**
 * Resolves each step's `approval.rewind_to` to a step name (ids become names) and checks that it names the step
 * itself or one of its upstream dependencies.
 */
export function resolveRewindTargets(
  r: DagReader,
  steps: ReadonlyArray<{ spec: StepSpec; field: string; approvalEntry?: Entry }>,
): void {
  // Most DAGs have no rewind target: the indexes below are made only for one that has.
  if (!steps.some((s) => s.spec.approval && s.spec.approval.rewind_to !== null)) return;
  const byName = new Map(steps.map((s) => [s.spec.name, s.spec]));
  const byId = new Map(steps.filter((s) => s.spec.id).map((s) => [s.spec.id!, s.spec]));
  for (const step of steps) {
    const approval = step.spec.approval;
    if (!approval || approval.rewind_to === null) continue;
    const written = approval.rewind_to;
    const target = byName.get(written) ?? byId.get(written);
    const at = step.approvalEntry?.value ?? null;
    const field = `${step.field}.approval.rewind_to`;
    if (!target) {
      r.error(at, field, `step ${step.spec.name} approval.rewind_to references non-existent step ${written}`);
      continue;
    }
    if (target.name !== step.spec.name && !upstreamOf(step.spec, byName).has(target.name)) {
      r.error(
        at,
        field,
        `step ${step.spec.name} approval.rewind_to must reference the step itself or an upstream dependency`,
      );
      continue;
    }
    approval.rewind_to = target.name;
  }
}

function upstreamOf(spec: StepSpec, byName: ReadonlyMap<string, StepSpec>): Set<string> {
  const seen = new Set<string>();
  const queue = [...spec.depends];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(byName.get(next)?.depends ?? []));
  }
  return seen;
}
