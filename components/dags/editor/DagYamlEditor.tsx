'use client';
// The DAG file's YAML in CodeMirror 6: highlighting, the server's `dagu validate` errors as inline marks and
// in a list a screen reader reads, the reference row of the key under the cursor, and a save that shows the
// diff first, needs a valid text and is refused when the file changed on disk (then the conflict view).
// Loaded on demand (DagSpecSection), so no other page carries CodeMirror.

import { indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { syntaxTree } from '@codemirror/language';
import { linter, type Diagnostic } from '@codemirror/lint';
import { EditorSelection, EditorState } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { useQueryClient } from '@tanstack/react-query';
import { basicSetup, EditorView } from 'codemirror';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { DagSpecCheck, SpecDiagnostic } from '@/components/apiTypes';
import { buttonClass } from '../../Panels';
import { errorText } from '../../errorText';
import { queryKeys } from '../../queryKeys';
import table from './dagKeyDocs.json';
import { diagnosticRange } from './diagnostics';
import { ConflictMerge, EDITOR_SURFACE, UnifiedDiff } from './DiffViews';
import { KeyDocPanel } from './KeyDocPanel';
import { keyDocFor, type KeyDocMatch, type KeyDocTable } from './keyDocs';
import { keyPathAt } from './keyPath';
import { saveSpec, validateSpec } from './specApi';

const KEY_DOCS = table as KeyDocTable;
const CHECK_DELAY_MS = 500;
const KEY_DOC_DELAY_MS = 150;

export interface DagYamlEditorProps {
  name: string;
  file: string;
  yaml: string;
  version: string;
  writable: boolean;
  /** Told whenever the text on disk the editor works from, or whether it has unsaved edits, changes. */
  onState?: (state: { version: string; dirty: boolean }) => void;
}

type Mode = { kind: 'edit' } | { kind: 'review' } | { kind: 'conflict'; disk: string; diskVersion: string };

interface Check {
  /** The text this answer is about: stale once the text moved on. */
  text: string;
  result: DagSpecCheck | null;
  failure: string | null;
}

export default function DagYamlEditor({
  name,
  file,
  yaml: loaded,
  version,
  writable,
  onState,
}: DagYamlEditorProps) {
  const client = useQueryClient();
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const [base, setBase] = useState({ text: loaded, version });
  const [text, setText] = useState(loaded);
  const [check, setCheck] = useState<Check | null>(null);
  const [keyDoc, setKeyDoc] = useState<KeyDocMatch | null>(null);
  const [mode, setMode] = useState<Mode>({ kind: 'edit' });
  const [merged, setMerged] = useState('');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const reviewHeading = useRef<HTMLHeadingElement>(null);
  const conflictHeading = useRef<HTMLHeadingElement>(null);

  const dirty = text !== base.text;
  const current = check !== null && check.text === text && check.result !== null;
  const valid = current && check.result!.valid;
  const errors: SpecDiagnostic[] = check?.result?.errors ?? [];

  useEffect(() => onState?.({ version: base.version, dirty }), [onState, base.version, dirty]);

  // Leaving the page with unsaved edits asks first (Dagu's editor loses them silently).
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const review = useRef<() => void>(() => {});
  review.current = () => {
    if (writable && dirty && valid && mode.kind === 'edit') setMode({ kind: 'review' });
  };

  useEffect(() => {
    let keyDocTimer: ReturnType<typeof setTimeout> | undefined;
    const showKeyDoc = (state: EditorState) => {
      clearTimeout(keyDocTimer);
      keyDocTimer = setTimeout(() => {
        const path = keyPathAt(syntaxTree(state), state.doc.toString(), state.selection.main.head);
        setKeyDoc(keyDocFor(KEY_DOCS, path));
      }, KEY_DOC_DELAY_MS);
    };
    const check = linter(
      async (view) => {
        const doc = view.state.doc.toString();
        try {
          const result = await validateSpec(name, doc);
          setCheck({ text: doc, result, failure: null });
          const mark =
            (severity: 'error' | 'warning') =>
            (e: SpecDiagnostic): Diagnostic => {
              const { from, to } = diagnosticRange(view.state.doc, e.line, e.column);
              const message = severity === 'error' && e.field ? `${e.field}: ${e.message}` : e.message;
              return { from, to, severity, message };
            };
          return [
            ...result.errors.map(mark('error')),
            // A warning with no place in the text is listed below the editor only.
            ...result.warnings.filter((w) => w.line !== null).map(mark('warning')),
          ];
        } catch (err) {
          setCheck({ text: doc, result: null, failure: errorText(err) });
          return [];
        }
      },
      { delay: CHECK_DELAY_MS },
    );
    const view = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: loaded,
        extensions: [
          basicSetup,
          keymap.of([
            indentWithTab,
            {
              key: 'Mod-s',
              run: () => {
                review.current();
                return true;
              },
            },
          ]),
          yaml(),
          writable ? check : [],
          EditorState.readOnly.of(!writable),
          EditorView.contentAttributes.of({
            'aria-label': `YAML of DAG ${name}${writable ? '' : ' (read-only)'}`,
            'aria-describedby': 'dag-editor-hint',
            'data-testid': 'dag-editor-content',
          }),
          EditorView.theme({
            '&': { fontSize: '13px', minHeight: '12rem', maxHeight: '70vh' },
            '&.cm-focused': { outline: '2px solid rgb(59 130 246)', outlineOffset: '1px' },
            '.cm-scroller': {
              fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace',
              overflow: 'auto',
            },
          }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) setText(u.state.doc.toString());
            if (u.docChanged || u.selectionSet) showKeyDoc(u.state);
          }),
        ],
      }),
    });
    viewRef.current = view;
    return () => {
      clearTimeout(keyDocTimer);
      view.destroy();
      viewRef.current = null;
    };
    // One editor per loaded text: a new text (another DAG) remounts this component.
  }, []);

  useEffect(() => {
    if (mode.kind === 'review') reviewHeading.current?.focus();
    if (mode.kind === 'conflict') conflictHeading.current?.focus();
  }, [mode.kind]);

  /** Replaces the editor's whole text (kept in its undo history). */
  const replaceText = useCallback((next: string) => {
    const view = viewRef.current;
    if (!view) return;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
  }, []);

  const jumpTo = (e: SpecDiagnostic) => {
    const view = viewRef.current;
    if (!view) return;
    const { from } = diagnosticRange(view.state.doc, e.line, e.column);
    view.dispatch({ selection: EditorSelection.cursor(from), scrollIntoView: true });
    view.focus();
  };

  const save = async () => {
    setBusy(true);
    setSaveError(null);
    try {
      const outcome = await saveSpec(name, text, base.version);
      if (outcome.kind === 'saved') {
        setBase({ text, version: outcome.version });
        setMode({ kind: 'edit' });
        setNotice(`Saved ${file}. The scheduler uses it from its next tick.`);
        client.setQueryData(queryKeys.dagSpec(name), (old: object | undefined) =>
          old ? { ...old, yaml: text, version: outcome.version } : old,
        );
        void client.invalidateQueries({ queryKey: queryKeys.dags() });
        viewRef.current?.focus();
      } else if (outcome.kind === 'invalid') {
        setCheck({ text, result: { valid: false, errors: outcome.errors, warnings: [] }, failure: null });
        setMode({ kind: 'edit' });
      } else {
        setMerged(text);
        setMode({ kind: 'conflict', disk: outcome.current.yaml, diskVersion: outcome.current.version });
      }
    } catch (err) {
      setSaveError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const adoptDisk = (next: string, mode: Extract<Mode, { kind: 'conflict' }>) => {
    setBase({ text: mode.disk, version: mode.diskVersion });
    replaceText(next);
    setMode({ kind: 'edit' });
    setNotice(
      next === mode.disk
        ? `Loaded the text on disk now.`
        : `Your merge is in the editor, based on the text on disk now: review and save it.`,
    );
    viewRef.current?.focus();
  };

  const why = !dirty
    ? 'No changes to save.'
    : !current
      ? 'Checking…'
      : !valid
        ? 'Fix the errors to save.'
        : null;

  return (
    <div className="flex flex-col gap-3">
      <div className="grid gap-3 lg:grid-cols-[minmax(0,1fr)_18rem]">
        <div className="flex min-w-0 flex-col gap-2">
          <div
            ref={host}
            data-testid="dag-editor"
            data-dirty={dirty ? 'true' : 'false'}
            className={`overflow-hidden rounded-md border border-zinc-300 dark:border-zinc-700 ${EDITOR_SURFACE}`}
          />
          <p id="dag-editor-hint" className="text-xs text-zinc-600 dark:text-zinc-400">
            {writable
              ? 'Tab indents. To leave the editor with the keyboard, press Esc and then Tab (Ctrl-M switches Tab to moving focus). Ctrl/Cmd-S reviews the changes before saving.'
              : 'Read-only. Press Esc and then Tab to leave the editor with the keyboard.'}
          </p>
        </div>
        <KeyDocPanel match={keyDoc} />
      </div>

      {writable && (
        <section
          aria-label="Validation"
          aria-live="polite"
          data-testid="spec-check"
          className="rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800"
        >
          <p data-testid="spec-check-summary" className="font-medium">
            {check?.failure
              ? `Cannot check the text: ${check.failure}`
              : !current
                ? 'Checking with dagu validate…'
                : valid
                  ? 'Valid: dagu validate finds no errors.'
                  : `${errors.length} ${errors.length === 1 ? 'error' : 'errors'}: the DAG cannot be saved until they are fixed.`}
          </p>
          {errors.length > 0 && (
            <ul data-testid="spec-errors" className="mt-2 flex flex-col gap-1">
              {errors.map((e, i) => (
                <li key={`${i}:${e.text}`}>
                  <button
                    type="button"
                    onClick={() => jumpTo(e)}
                    data-testid="spec-error"
                    className="text-left font-mono text-xs break-words text-red-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-red-300"
                  >
                    {e.text}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {current && check?.result && check.result.warnings.length > 0 && (
            <ul data-testid="spec-warnings" className="mt-2 flex flex-col gap-1">
              {check.result.warnings.map((w, i) => (
                <li key={`${i}:${w.text}`}>
                  <button
                    type="button"
                    onClick={() => jumpTo(w)}
                    className="text-left font-mono text-xs break-words text-amber-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-amber-300"
                  >
                    {w.text}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}

      {notice && (
        <p role="status" data-testid="spec-notice" className="text-sm text-emerald-800 dark:text-emerald-300">
          {notice}
        </p>
      )}

      {writable && mode.kind === 'edit' && (
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            className={buttonClass('primary')}
            disabled={why !== null}
            aria-describedby={why ? 'spec-save-why' : undefined}
            onClick={() => review.current()}
            data-testid="spec-review"
          >
            Review and save…
          </button>
          <button
            type="button"
            className={buttonClass('secondary')}
            disabled={!dirty}
            onClick={() => {
              replaceText(base.text);
              setNotice('Changes discarded.');
            }}
          >
            Discard changes
          </button>
          {why && (
            <span id="spec-save-why" className="text-xs text-zinc-600 dark:text-zinc-400">
              {why}
            </span>
          )}
        </div>
      )}

      {mode.kind === 'review' && (
        <section
          aria-labelledby="spec-review-heading"
          data-testid="spec-review-panel"
          className="flex flex-col gap-2"
        >
          <h3 id="spec-review-heading" ref={reviewHeading} tabIndex={-1} className="font-semibold">
            Review the changes to {file}
          </h3>
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            Removed lines are struck through, added ones highlighted. Saving replaces the file in one step,
            and only if nobody changed it since you loaded it.
          </p>
          <UnifiedDiff before={base.text} after={text} label={`Changes to ${file}`} testId="spec-diff" />
          {saveError && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-300">
              {saveError}
            </p>
          )}
          <div className="flex gap-2">
            <button
              type="button"
              className={buttonClass('primary')}
              disabled={busy}
              aria-busy={busy}
              onClick={() => void save()}
              data-testid="spec-confirm-save"
            >
              Save {file}
            </button>
            <button
              type="button"
              className={buttonClass('secondary')}
              onClick={() => setMode({ kind: 'edit' })}
            >
              Back to editing
            </button>
          </div>
        </section>
      )}

      {mode.kind === 'conflict' && (
        <section
          aria-labelledby="spec-conflict-heading"
          data-testid="spec-conflict"
          className="flex flex-col gap-3"
        >
          <div role="alert">
            <h3
              id="spec-conflict-heading"
              ref={conflictHeading}
              tabIndex={-1}
              className="font-semibold text-red-800 dark:text-red-300"
            >
              Not saved: {file} changed on disk since you loaded it
            </h3>
          </div>
          <details open className="flex flex-col gap-1">
            <summary className="cursor-pointer text-sm font-medium">
              What changed on disk (the text you loaded → the text on disk now)
            </summary>
            <UnifiedDiff
              before={base.text}
              after={mode.disk}
              label="Changes on disk since you loaded the file"
              testId="conflict-base-disk"
            />
          </details>
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            Left: the text on disk now. Right: yours, editable. The arrows copy a part of the disk&apos;s text
            into yours. Then continue with the merged text; it is checked and reviewed before it is saved.
          </p>
          <ConflictMerge disk={mode.disk} yours={text} onChange={setMerged} />
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={buttonClass('primary')}
              onClick={() => adoptDisk(merged, mode)}
              data-testid="conflict-use-merge"
            >
              Continue with the merged text
            </button>
            <button
              type="button"
              className={buttonClass('secondary')}
              onClick={() => adoptDisk(mode.disk, mode)}
              data-testid="conflict-take-disk"
            >
              Drop my changes, load the disk&apos;s text
            </button>
          </div>
        </section>
      )}
    </div>
  );
}
