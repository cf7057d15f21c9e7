'use client';
// The two comparisons the editor shows, both CodeMirror merge views: a read-only unified diff (old lines
// struck through above the new ones), and the conflict's side-by-side merge of the disk's text into yours.

import { MergeView, unifiedMergeView } from '@codemirror/merge';
import { EditorState, type Extension } from '@codemirror/state';
import { yaml } from '@codemirror/lang-yaml';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef } from 'react';

/**
 * The editors stay light in the dark colour scheme: CodeMirror's default highlighting is made for a light
 * background, and its token colours fail contrast on a dark one.
 */
export const EDITOR_SURFACE = 'bg-white text-zinc-900 [color-scheme:light]';

const frame = EditorView.theme({
  '&': { fontSize: '13px' },
  '&.cm-focused': { outline: '2px solid rgb(59 130 246)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
});

const readOnly: Extension = [EditorState.readOnly.of(true), EditorView.editable.of(true)];

/** `after` with the lines that differ from `before` marked; read-only, focusable, labelled. */
export function UnifiedDiff({
  before,
  after,
  label,
  testId,
}: {
  before: string;
  after: string;
  label: string;
  testId?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: after,
        extensions: [
          basicSetup,
          yaml(),
          frame,
          readOnly,
          unifiedMergeView({ original: before, mergeControls: false, collapseUnchanged: { margin: 3 } }),
          EditorView.contentAttributes.of({ 'aria-label': label }),
        ],
      }),
    });
    return () => view.destroy();
  }, [before, after, label]);
  return (
    <div
      ref={host}
      data-testid={testId}
      className={`max-h-[50vh] overflow-auto rounded-md border border-zinc-300 dark:border-zinc-700 ${EDITOR_SURFACE}`}
    />
  );
}

/**
 * The disk's text (left, read-only) beside yours (right, editable); the arrows between them copy a changed
 * part of the disk's text into yours. `onChange` gets your side's text after every change.
 */
export function ConflictMerge({
  disk,
  yours,
  onChange,
}: {
  disk: string;
  yours: string;
  onChange: (text: string) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const changed = useRef(onChange);
  useEffect(() => {
    changed.current = onChange;
  }, [onChange]);
  useEffect(() => {
    const view = new MergeView({
      parent: host.current!,
      revertControls: 'a-to-b',
      collapseUnchanged: { margin: 3 },
      a: {
        doc: disk,
        extensions: [
          basicSetup,
          yaml(),
          frame,
          readOnly,
          EditorView.contentAttributes.of({ 'aria-label': 'The text on disk now (read-only)' }),
        ],
      },
      b: {
        doc: yours,
        extensions: [
          basicSetup,
          yaml(),
          frame,
          EditorView.contentAttributes.of({ 'aria-label': 'Your text, to merge into' }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      },
    });
    return () => view.destroy();
    // Built once per conflict: the merge happens inside the view, and a new conflict remounts it.
  }, []);
  return (
    <div
      ref={host}
      data-testid="conflict-merge"
      className={`max-h-[60vh] overflow-auto rounded-md border border-zinc-300 dark:border-zinc-700 ${EDITOR_SURFACE}`}
    />
  );
}
