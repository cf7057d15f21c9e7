'use client';
// The DAG page's "Definition" section: the file's YAML in the editor (loaded on demand: CodeMirror is only
// downloaded by a page that shows it), with Rename and Delete. Where the server does not allow writing DAG
// files (server.permissions.write_dags: false), the section is a read-only view with a note and no write
// controls at all, rather than buttons that answer 403.

import { useQuery, useQueryClient } from '@tanstack/react-query';
import dynamic from 'next/dynamic';
import { useRouter } from 'next/navigation';
import { useCallback, useState } from 'react';
import { isValidDagName } from '@/server/core/names';
import { ConfirmDialog } from '../../dialog/ConfirmDialog';
import { buttonClass, ErrorPanel, LoadingPanel } from '../../Panels';
import { errorText } from '../../errorText';
import { queryKeys } from '../../queryKeys';
import { NAME_RULE } from './nameRule';
import { deleteDag, dagSpecQuery, renameDag } from './specApi';

const DagYamlEditor = dynamic(() => import('./DagYamlEditor'), {
  ssr: false,
  loading: () => <LoadingPanel label="Loading the editor…" />,
});

export function DagSpecSection({ name }: { name: string }) {
  const spec = useQuery(dagSpecQuery(name));
  const [state, setState] = useState<{ version: string; dirty: boolean } | null>(null);
  const [dialog, setDialog] = useState<'rename' | 'delete' | null>(null);
  const onState = useCallback((s: { version: string; dirty: boolean }) => setState(s), []);
  const data = spec.data;
  return (
    <section
      aria-labelledby="definition-heading"
      className="flex flex-col gap-3"
      data-testid="dag-definition"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="definition-heading" className="text-lg font-semibold">
          Definition{data ? ` (${data.file})` : ''}
        </h2>
        {data?.writable && (
          <div className="flex gap-2">
            <button type="button" className={buttonClass('secondary')} onClick={() => setDialog('rename')}>
              Rename…
            </button>
            <button type="button" className={buttonClass('danger')} onClick={() => setDialog('delete')}>
              Delete…
            </button>
          </div>
        )}
      </div>
      {spec.error && !data && (
        <ErrorPanel
          title="Cannot load the DAG file"
          message={errorText(spec.error)}
          onRetry={() => void spec.refetch()}
        />
      )}
      {data && !data.writable && (
        <p data-testid="dag-read-only" className="text-sm text-zinc-700 dark:text-zinc-300">
          Read-only: this server does not allow editing DAG files from the console (
          <code className="font-mono">server.permissions.write_dags</code> is false).
        </p>
      )}
      {data && (
        <DagYamlEditor
          key={name}
          name={name}
          file={data.file}
          yaml={data.yaml}
          version={data.version}
          writable={data.writable}
          onState={onState}
        />
      )}
      {dialog === 'rename' && (
        <RenameDialog
          name={name}
          version={state?.version}
          dirty={state?.dirty ?? false}
          onDone={() => setDialog(null)}
        />
      )}
      {dialog === 'delete' && (
        <DeleteDialog
          name={name}
          file={data?.file ?? name}
          version={state?.version}
          onDone={() => setDialog(null)}
        />
      )}
    </section>
  );
}

function RenameDialog({
  name,
  version,
  dirty,
  onDone,
}: {
  name: string;
  version?: string;
  dirty: boolean;
  onDone: () => void;
}) {
  const router = useRouter();
  const client = useQueryClient();
  const [newName, setNewName] = useState(name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const invalid = newName !== '' && !isValidDagName(newName);
  const confirm = async () => {
    if (!isValidDagName(newName)) return setError(`The name uses ${NAME_RULE}.`);
    if (newName === name) return setError('That is its name already.');
    setBusy(true);
    try {
      const r = await renameDag(name, newName, version);
      client.removeQueries({ queryKey: queryKeys.dagSpec(name) });
      await client.invalidateQueries({ queryKey: queryKeys.dags() });
      router.replace(`/dags/${encodeURIComponent(r.name)}`);
      onDone();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog
      title={`Rename DAG ${name}`}
      confirmLabel="Rename"
      busy={busy}
      error={error}
      onConfirm={() => void confirm()}
      onDismiss={onDone}
      testId="rename-dialog"
    >
      <label className="flex flex-col gap-1">
        <span className="font-medium">New name</span>
        <input
          value={newName}
          onChange={(e) => {
            setNewName(e.target.value);
            setError(null);
          }}
          aria-invalid={invalid}
          aria-describedby="rename-rule"
          className="rounded-md border border-zinc-300 px-2 py-1 font-mono focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-600 dark:bg-zinc-800"
          data-testid="rename-input"
        />
      </label>
      <p id="rename-rule" className="mt-2 text-xs">
        The file is renamed; its runs so far keep the old name in the history. Names use {NAME_RULE}. Refused
        while a run of it is queued or running.
        {dirty && ' Your unsaved changes in the editor are lost.'}
      </p>
    </ConfirmDialog>
  );
}

function DeleteDialog({
  name,
  file,
  version,
  onDone,
}: {
  name: string;
  file: string;
  version?: string;
  onDone: () => void;
}) {
  const router = useRouter();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    try {
      await deleteDag(name, version);
      client.removeQueries({ queryKey: queryKeys.dagSpec(name) });
      await client.invalidateQueries({ queryKey: queryKeys.dags() });
      router.push('/dags');
      onDone();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog
      title={`Delete DAG ${name}?`}
      confirmLabel="Delete"
      tone="danger"
      busy={busy}
      error={error}
      onConfirm={() => void confirm()}
      onDismiss={onDone}
      testId="delete-dialog"
    >
      <p>
        Removes <code className="font-mono">{file}</code> from the DAGs directory; the scheduler stops
        scheduling it at its next tick. The history of its runs stays. Refused while a run of it is queued or
        running: stop or dequeue those first.
      </p>
    </ConfirmDialog>
  );
}
