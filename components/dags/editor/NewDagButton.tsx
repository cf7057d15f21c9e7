'use client';
// "New DAG…" on the DAG list: a name and a template, then the new DAG's page with its editor. Not shown at
// all when the server does not allow writing DAG files (the session says so).

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { CreateDagRequest } from '@/components/apiTypes';
import { isValidDagName } from '@/server/core/names';
import { sessionQuery } from '../../auth/session';
import { ConfirmDialog } from '../../dialog/ConfirmDialog';
import { buttonClass } from '../../Panels';
import { errorText } from '../../errorText';
import { queryKeys } from '../../queryKeys';
import { NAME_RULE } from './nameRule';
import { createDag } from './specApi';

type Template = NonNullable<CreateDagRequest['template']>;

const TEMPLATES: ReadonlyArray<[Template, string]> = [
  ['hello', 'Hello: one step that prints a greeting'],
  ['chained', 'Chained: three steps, each after the one before'],
  ['scheduled', 'Scheduled: one step, every day at 02:00'],
  ['empty', 'Empty: one step that does nothing'],
];

export function NewDagButton() {
  const session = useQuery(sessionQuery());
  const [open, setOpen] = useState(false);
  if (!session.data?.write_dags) return null;
  return (
    <>
      <button type="button" className={buttonClass('primary')} onClick={() => setOpen(true)}>
        New DAG…
      </button>
      {open && <NewDagDialog onDone={() => setOpen(false)} />}
    </>
  );
}

function NewDagDialog({ onDone }: { onDone: () => void }) {
  const router = useRouter();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [template, setTemplate] = useState<Template>('hello');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const invalid = name !== '' && !isValidDagName(name);
  const confirm = async () => {
    if (!isValidDagName(name)) return setError(`The name uses ${NAME_RULE}.`);
    setBusy(true);
    try {
      const r = await createDag({ name, template });
      await client.invalidateQueries({ queryKey: queryKeys.dags() });
      router.push(`/dags/${encodeURIComponent(r.name)}`);
      onDone();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  const field =
    'rounded-md border border-zinc-300 px-2 py-1 focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-600 dark:bg-zinc-800';
  return (
    <ConfirmDialog
      title="New DAG"
      confirmLabel="Create"
      busy={busy}
      error={error}
      onConfirm={() => void confirm()}
      onDismiss={onDone}
      testId="new-dag-dialog"
    >
      <div className="flex flex-col gap-3">
        <label className="flex flex-col gap-1">
          <span className="font-medium">Name</span>
          <input
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setError(null);
            }}
            aria-invalid={invalid}
            aria-describedby="new-dag-rule"
            className={`${field} font-mono`}
            data-testid="new-dag-name"
          />
        </label>
        <p id="new-dag-rule" className="text-xs">
          Becomes <code className="font-mono">{name || 'name'}.yaml</code> in the DAGs directory; {NAME_RULE}.
        </p>
        <label className="flex flex-col gap-1">
          <span className="font-medium">Start from</span>
          <select
            value={template}
            onChange={(e) => setTemplate(e.target.value as Template)}
            className={field}
            data-testid="new-dag-template"
          >
            {TEMPLATES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
    </ConfirmDialog>
  );
}
