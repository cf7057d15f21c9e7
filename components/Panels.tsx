// Shared building blocks of every view: page header, empty state, error and loading panels.

import type { ReactNode } from 'react';

/** The page title with its actions; `inStack` drops the bottom margin inside a view that spaces its parts. */
export function PageHeader({
  title,
  children,
  inStack = false,
}: {
  title: ReactNode;
  children?: ReactNode;
  inStack?: boolean;
}) {
  return (
    <div className={`${inStack ? '' : 'mb-6 '}flex flex-wrap items-center justify-between gap-3`}>
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {children && <div className="flex items-center gap-2">{children}</div>}
    </div>
  );
}

export function EmptyState({
  title,
  children,
  testId,
}: {
  title: string;
  children?: ReactNode;
  testId?: string;
}) {
  return (
    <div
      data-testid={testId}
      className="rounded-lg border border-dashed border-zinc-300 px-6 py-10 text-center dark:border-zinc-700"
    >
      <p className="font-medium">{title}</p>
      {children && <div className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{children}</div>}
    </div>
  );
}

export function ErrorPanel({
  title,
  message,
  onRetry,
}: {
  title: string;
  message: string;
  onRetry?: () => void;
}) {
  return (
    <div
      role="alert"
      className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
    >
      <p className="font-medium">{title}</p>
      <p className="mt-1 text-sm break-words">{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry} className={`${buttonClass('secondary')} mt-3`}>
          Try again
        </button>
      )}
    </div>
  );
}

/** One labelled value of a detail view's description list. */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        {label}
      </dt>
      <dd className="mt-0.5 break-words">{children}</dd>
    </div>
  );
}

/** Shown above data that could not be refreshed, so a stopped server never looks live. */
export function StaleNotice({ message }: { message: string }) {
  return (
    <p
      role="status"
      className="mb-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
    >
      Cannot refresh; showing the last data received. {message}
    </p>
  );
}

export function LoadingPanel({ label = 'Loading…' }: { label?: string }) {
  return (
    <div
      role="status"
      aria-live="polite"
      className="flex items-center gap-3 py-10 text-zinc-500 dark:text-zinc-400"
    >
      <span
        aria-hidden
        className="size-4 animate-spin rounded-full border-2 border-current border-t-transparent"
      />
      {label}
    </div>
  );
}

/** Classes of the console's buttons (real <button> or <Link>), so every action looks and focuses the same. */
export function buttonClass(kind: 'primary' | 'secondary' | 'danger' = 'primary'): string {
  const base =
    'inline-flex items-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium shadow-sm disabled:cursor-not-allowed disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500';
  const kinds = {
    primary: 'bg-blue-600 text-white hover:bg-blue-700 dark:bg-blue-600 dark:hover:bg-blue-700',
    secondary:
      'bg-white text-zinc-900 ring-1 ring-inset ring-zinc-300 hover:bg-zinc-50 dark:bg-zinc-800 dark:text-zinc-100 dark:ring-zinc-600 dark:hover:bg-zinc-700',
    danger: 'bg-red-600 text-white hover:bg-red-500 dark:bg-red-600 dark:hover:bg-red-500',
  };
  return `${base} ${kinds[kind]}`;
}

export const tableClass = 'min-w-full divide-y divide-zinc-200 text-sm dark:divide-zinc-800';
export const thClass =
  'px-3 py-2 text-left text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400';
export const tdClass = 'px-3 py-2 align-top';
export const linkClass =
  'font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-300';

/** A column heading: plain text, or a label with an extra class (alignment, width). */
export type TableColumn = string | { label: ReactNode; className?: string };

/** The heading row of a table; a `false` entry is a column left out (e.g. the DAG column inside a DAG). */
export function TableHead({ columns }: { columns: ReadonlyArray<TableColumn | false> }) {
  return (
    <thead className="bg-zinc-50 dark:bg-zinc-900">
      <tr>
        {columns.map((c, i) => {
          if (c === false) return null;
          const { label, className } = typeof c === 'string' ? { label: c, className: undefined } : c;
          return (
            <th key={i} scope="col" className={className ? `${thClass} ${className}` : thClass}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
