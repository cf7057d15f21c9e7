'use client';
// The open human tasks of a waiting run: each one's prompt and a form for its input (none for an
// acknowledgement); completing the last open one resumes the run. The server's refusal is shown by the form.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RunStatus } from '@/components/apiTypes';
import { buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { completeHumanTask } from '../queries';
import { humanTaskFields, humanTaskInputs, openHumanTasks, type HumanTaskField } from './humanTaskInputs';

const INPUT =
  'rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-600 dark:bg-zinc-800';

export function HumanTaskPanel({ run }: { run: RunStatus }) {
  const open = openHumanTasks(run.steps);
  if (run.status !== 'waiting' || open.length === 0) return null;
  return (
    <section aria-labelledby="human-tasks-heading" className="flex flex-col gap-3" data-testid="human-tasks">
      <h2 id="human-tasks-heading" className="text-lg font-semibold">
        Human tasks
      </h2>
      {open.map(({ task }) => (
        <HumanTaskForm key={task.id} runId={run.run_id} task={task} />
      ))}
    </section>
  );
}

function HumanTaskForm({
  runId,
  task,
}: {
  runId: string;
  task: NonNullable<RunStatus['steps'][number]['human_task']>;
}) {
  const client = useQueryClient();
  const fields = humanTaskFields(task);
  const [values, setValues] = useState<Record<string, string>>({});
  const [localError, setLocalError] = useState<string | null>(null);
  const complete = useMutation({
    mutationFn: (inputs: Record<string, unknown>) => completeHumanTask(client, runId, task.id, inputs),
  });
  const submit = () => {
    const read = humanTaskInputs(fields, values);
    if (!read.ok) return setLocalError(read.error);
    setLocalError(null);
    complete.mutate(read.inputs);
  };
  const error = localError ?? (complete.isError ? errorText(complete.error) : null);
  return (
    <form
      className="flex flex-col gap-3 rounded-md border border-violet-300 bg-violet-50 p-3 dark:border-violet-800 dark:bg-violet-950"
      data-testid={`human-task-${task.id}`}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <p className="text-sm whitespace-pre-wrap">
        <span className="font-mono text-xs text-zinc-600 dark:text-zinc-300">{task.id}</span> {task.prompt}
      </p>
      {fields.map((f) => (
        <FieldInput
          key={f.name}
          field={f}
          value={values[f.name] ?? f.initial}
          onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
        />
      ))}
      <div className="flex items-center gap-3">
        <button type="submit" className={buttonClass('primary')} disabled={complete.isPending}>
          {complete.isPending ? 'Completing…' : fields.length === 0 ? 'Acknowledge' : 'Complete'}
        </button>
        {complete.isSuccess && (
          <span role="status" className="text-xs text-zinc-700 dark:text-zinc-200">
            {complete.data.message}
          </span>
        )}
        {error && (
          <span role="alert" className="text-xs text-red-700 dark:text-red-300">
            {error}
          </span>
        )}
      </div>
    </form>
  );
}

function FieldInput({
  field,
  value,
  onChange,
}: {
  field: HumanTaskField;
  value: string;
  onChange: (value: string) => void;
}) {
  const id = `human-field-${field.name}`;
  const label = `${field.label}${field.required ? ' *' : ''}`;
  let input;
  if (field.type === 'boolean') {
    input = (
      <input
        id={id}
        type="checkbox"
        checked={value === 'true'}
        onChange={(e) => onChange(e.target.checked ? 'true' : 'false')}
      />
    );
  } else if (field.choices) {
    input = (
      <select id={id} className={INPUT} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{field.required ? 'Choose…' : '(default)'}</option>
        {field.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    );
  } else {
    input = (
      <input
        id={id}
        className={INPUT}
        inputMode={field.type === 'string' ? undefined : 'decimal'}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div className="flex flex-col gap-1 text-sm">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      {input}
      {field.description && (
        <span className="text-xs text-zinc-600 dark:text-zinc-300">{field.description}</span>
      )}
    </div>
  );
}
