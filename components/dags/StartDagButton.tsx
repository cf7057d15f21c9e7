'use client';
// "Run with parameters…": a dialog asks for parameters (the DAG's declared ones as a hint), starts the DAG
// through the API, then opens the new run (started here, dispatched to a worker, or held for one). A DAG whose
// `run_config.disable_param_edit` is set shows its parameters read-only and starts with them, as Dagu's start
// dialog does. A build DAG (`type: build`) also offers "Disable reuse for this run" (`no_reuse`).

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import type { ParamSpec } from '@/components/apiTypes';
import { buttonClass } from '../Panels';
import { ConfirmDialog } from '../dialog/ConfirmDialog';
import { errorText } from '../errorText';
import { startDagRun } from '../queries';
import { declaredParams, parseParamsText, quoteParam } from './paramsText';

export function StartDagButton({
  dag,
  params,
  paramsLocked = false,
  build = false,
  disabled = false,
}: {
  dag: string;
  /** The definition's `params`, shown as the defaults. */
  params: readonly ParamSpec[] | undefined;
  /** `run_config.disable_param_edit`: the defaults are shown and cannot be changed. */
  paramsLocked?: boolean;
  /** A build DAG (`type: build`): the dialog offers to disable reuse for the run. */
  build?: boolean;
  disabled?: boolean;
}) {
  const client = useQueryClient();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const [noReuse, setNoReuse] = useState(false);
  const fieldId = useId();
  const hintId = useId();
  const noReuseId = useId();
  const noReuseHintId = useId();
  const start = useMutation({
    mutationFn: (words: string[]) => startDagRun(client, dag, words, { noReuse: build && noReuse }),
    onSuccess: (result) => router.push(`/runs/${encodeURIComponent(result.run_id)}`),
  });
  const defaults = declaredParams(params);

  const submit = () => {
    if (paramsLocked) {
      // Nothing given: the run gets the declared defaults.
      start.mutate([]);
      return;
    }
    const parsed = parseParamsText(text);
    if (!parsed.ok) {
      setInvalid(parsed.error);
      return;
    }
    setInvalid(null);
    start.mutate(parsed.params);
  };

  return (
    <>
      <button
        type="button"
        className={buttonClass('secondary')}
        disabled={disabled}
        onClick={() => {
          start.reset();
          setNoReuse(false);
          setOpen(true);
        }}
        data-testid="start-dag"
      >
        Run with parameters…
      </button>
      {open && (
        <ConfirmDialog
          title={`Start ${dag}`}
          confirmLabel="Start"
          busy={start.isPending || start.isSuccess}
          error={invalid ?? (start.isError ? errorText(start.error) : null)}
          onConfirm={submit}
          onDismiss={() => setOpen(false)}
          testId="start-dialog"
        >
          <label htmlFor={fieldId} className="block font-medium text-zinc-900 dark:text-zinc-100">
            Parameters
          </label>
          <textarea
            id={fieldId}
            name="params"
            rows={4}
            value={paramsLocked ? defaults.map(quoteParam).join('\n') : text}
            readOnly={paramsLocked}
            onChange={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Ctrl/Cmd+Enter starts; plain Enter is a new line (one parameter per line).
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                submit();
              }
            }}
            aria-describedby={hintId}
            aria-invalid={invalid !== null}
            placeholder={defaults.length > 0 ? defaults.map(quoteParam).join('\n') : 'KEY=value'}
            spellCheck={false}
            className="mt-1 w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 font-mono text-sm text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
          />
          <div id={hintId} className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            {paramsLocked ? (
              <p data-testid="params-locked">
                This DAG does not let its parameters be edited here (
                <code>run_config.disable_param_edit</code>
                ): it starts with the defaults.
              </p>
            ) : (
              <p>
                <code>KEY=value</code> or a positional value, one per line or separated by spaces; quote a
                value that holds spaces. Empty keeps the defaults; a value given replaces its default.
              </p>
            )}
            <p className="mt-1">
              Declared:{' '}
              {defaults.length > 0 ? (
                <code data-testid="declared-params">{defaults.map(quoteParam).join(' ')}</code>
              ) : (
                'none'
              )}
            </p>
          </div>
          {build && (
            <div className="mt-3 flex items-start gap-2">
              <input
                id={noReuseId}
                type="checkbox"
                name="no_reuse"
                checked={noReuse}
                onChange={(e) => setNoReuse(e.currentTarget.checked)}
                aria-describedby={noReuseHintId}
                data-testid="start-no-reuse"
                className="mt-0.5 size-4 accent-blue-600 focus-visible:outline-2 focus-visible:outline-blue-500"
              />
              <div>
                <label htmlFor={noReuseId} className="font-medium text-zinc-900 dark:text-zinc-100">
                  Disable reuse for this run
                </label>
                <p id={noReuseHintId} className="text-xs text-zinc-600 dark:text-zinc-400">
                  Steps execute even where their committed output still matches; a new output replaces the old
                  one only once its step succeeds.
                </p>
              </div>
            </div>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
