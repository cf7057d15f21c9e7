'use client';
// A modal question before an action that cannot be undone (cancel, stop) or that needs input (start).
// Built on the native <dialog> shown with showModal(): the page behind it is inert, Escape closes it, and Tab
// is additionally kept inside it so focus never reaches the browser's UI from the last button. Focus goes
// back to whatever opened it.

import { useEffect, useId, useRef, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { buttonClass } from '../Panels';

export interface ConfirmDialogProps {
  title: string;
  children?: ReactNode;
  /** The confirm button's text (and accessible name). */
  confirmLabel: string;
  /** The dismiss button's text. */
  dismissLabel?: string;
  tone?: 'primary' | 'danger';
  busy?: boolean;
  /** Shown under the content, e.g. the server's refusal. */
  error?: string | null;
  onConfirm: () => void;
  onDismiss: () => void;
  testId?: string;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Render it only while it is open: mounting shows it, unmounting closes it. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  dismissLabel = 'Cancel',
  tone = 'primary',
  busy = false,
  error,
  onConfirm,
  onDismiss,
  testId,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const dismiss = useRef(onDismiss);
  useEffect(() => {
    dismiss.current = onDismiss;
  }, [onDismiss]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    // The first field, else the dismiss button: Enter on a stray keypress must not confirm a cancel.
    const first =
      dialog.querySelector<HTMLElement>('input, textarea, select') ??
      dialog.querySelector<HTMLElement>('[data-dialog-dismiss]');
    first?.focus();
    const onCancel = (e: Event) => {
      // Escape: let React state close it, so the dialog and its owner never disagree.
      e.preventDefault();
      dismiss.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== 'Tab') return;
    const items = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!busy) onConfirm();
  };

  return (
    <dialog
      ref={ref}
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      data-testid={testId}
      onKeyDown={onKeyDown}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <form onSubmit={onSubmit} className="flex flex-col gap-4 p-5">
        <h2 id={titleId} className="text-lg font-semibold">
          {title}
        </h2>
        {children && <div className="text-sm text-zinc-700 dark:text-zinc-300">{children}</div>}
        {error && (
          <p role="alert" className="text-sm break-words text-red-700 dark:text-red-300">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" data-dialog-dismiss className={buttonClass('secondary')} onClick={onDismiss}>
            {dismissLabel}
          </button>
          <button type="submit" className={buttonClass(tone)} disabled={busy} aria-busy={busy}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
