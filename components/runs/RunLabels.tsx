// A run's labels as small chips, each a link to the runs carrying it; with `max`, only the first few and
// "+N" for the rest, whose title lists them all. Nothing at all for a run without labels.

import Link from 'next/link';
import { chipLabels } from './labelChips';
import { runListHref } from './runFilterUrl';

const CHIP =
  'rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200';

export function RunLabels({
  labels,
  max,
  testId,
  chipTestId,
  name,
}: {
  labels: readonly string[] | undefined;
  /** How many chips at most; all of them when absent. */
  max?: number;
  testId: string;
  chipTestId: string;
  /** The list's accessible name. */
  name: string;
}) {
  const { shown, hidden } = chipLabels(labels, max);
  if (shown.length === 0) return null;
  return (
    <ul aria-label={name} className="flex flex-wrap gap-1" data-testid={testId}>
      {shown.map((label) => (
        <li key={label}>
          <Link
            href={runListHref({ labels: label })}
            title={`Runs labelled ${label}`}
            className={`${CHIP} inline-block hover:bg-zinc-200 focus-visible:outline-2 focus-visible:outline-blue-500 dark:hover:bg-zinc-700`}
            data-testid={chipTestId}
          >
            {label}
          </Link>
        </li>
      ))}
      {hidden.length > 0 && (
        <li
          className={`${CHIP} cursor-help`}
          title={(labels ?? []).join(', ')}
          data-testid={`${testId}-more`}
        >
          +{hidden.length}
          <span className="sr-only"> more: {hidden.join(', ')}</span>
        </li>
      )}
    </ul>
  );
}
