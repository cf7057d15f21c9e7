// The console's completion form of a human task: one field per form property, as text (a checkbox state for a
// boolean), turned into the typed JSON object the completion route takes. An empty field is left out, so the
// form's default applies on the server; a number that does not read as one is reported here.

import type { StepStatus } from '@/components/apiTypes';

export interface HumanTaskField {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  label: string;
  description: string | null;
  required: boolean;
  /** Choices of an `enum` or `oneOf` (value and label), else null. */
  choices: Array<{ value: string; label: string }> | null;
  /** The default as the field's text, or '' without one. */
  initial: string;
}

type Task = NonNullable<StepStatus['human_task']>;

/** The open human tasks of a run's steps. */
export function openHumanTasks(steps: readonly StepStatus[]): Array<{ step: StepStatus; task: Task }> {
  return steps.flatMap((step) =>
    step.status === 'waiting' && step.human_task ? [{ step, task: step.human_task }] : [],
  );
}

/** The fields of a task's form, in the form's order; none for an acknowledgement. */
export function humanTaskFields(task: Task): HumanTaskField[] {
  const form = task.form as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  } | null;
  if (!form) return [];
  const required = new Set(form.required ?? []);
  return Object.entries(form.properties ?? {}).map(([name, prop]) => {
    const type = prop.type as HumanTaskField['type'];
    const choices = Array.isArray(prop.enum)
      ? prop.enum.map((v) => ({ value: String(v), label: String(v) }))
      : Array.isArray(prop.oneOf)
        ? (prop.oneOf as Array<{ const: unknown; title?: string }>).map((c) => ({
            value: String(c.const),
            label: c.title ?? String(c.const),
          }))
        : null;
    return {
      name,
      type,
      label: typeof prop.title === 'string' ? prop.title : name,
      description: typeof prop.description === 'string' ? prop.description : null,
      required: required.has(name),
      choices,
      initial: prop.default === undefined ? '' : String(prop.default),
    };
  });
}

/** The typed input of the filled-in fields, or the first field whose text is not of its type. */
export function humanTaskInputs(
  fields: readonly HumanTaskField[],
  values: Readonly<Record<string, string>>,
): { ok: true; inputs: Record<string, unknown> } | { ok: false; error: string } {
  const inputs: Record<string, unknown> = {};
  for (const f of fields) {
    const text = values[f.name] ?? f.initial;
    if (text === '') continue;
    switch (f.type) {
      case 'string':
        inputs[f.name] = text;
        break;
      case 'boolean':
        inputs[f.name] = text === 'true';
        break;
      case 'integer':
      case 'number': {
        const n = Number(text.trim());
        if (text.trim() === '' || !Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n)))
          return {
            ok: false,
            error: `${f.label}: expected ${f.type === 'integer' ? 'a whole number' : 'a number'}`,
          };
        inputs[f.name] = n;
        break;
      }
    }
  }
  return { ok: true, inputs };
}
