'use client';
// The child runs of a `call` or `parallel` step: counts by state first, then the runs themselves, a page at a
// time and filterable by state and item, so that a fan-out of a thousand children stays quick to read.

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { StepStatus } from '@/components/apiTypes';
import { countSubRuns, subRunStateLabel, subRunSummaryText, UNKNOWN_SUB_RUN_STATE } from './stepNotes';
import { linkClass } from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { ShowMore } from './ShowMore';
import { runHref } from './runLinks';
import { formatDurationMs } from '../format';
import { runTimingsQuery } from '../queries';

type SubRun = NonNullable<StepStatus['sub_runs']>[number];

/** Rows rendered at once; "Show more" adds as many again. */
export const SUB_RUN_PAGE = 50;
/** Below this many children the filters would only get in the way. */
const FILTER_FROM = 10;

export function SubRunList({ stepName, subRuns }: { stepName: string; subRuns: readonly SubRun[] }) {
  const [state, setState] = useState('');
  const [text, setText] = useState('');
  const [shown, setShown] = useState(SUB_RUN_PAGE);
  const counts = useMemo(() => countSubRuns(subRuns), [subRuns]);
  const matching = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return subRuns.filter(
      (r) =>
        (state === '' || subRunStateLabel(r.status) === state) &&
        (needle === '' || [r.item ?? '', r.run_id, r.dag_name].some((v) => v.toLowerCase().includes(needle))),
    );
  }, [subRuns, state, text]);
  const visible = matching.slice(0, shown);
  // Durations come from the children's own records, asked for the visible ones only (100 at a time at most).
  const timings = useQuery(runTimingsQuery(visible.slice(0, 100).map((r) => r.run_id)));
  const timingOf = new Map((timings.data?.runs ?? []).map((t) => [t.run_id, t]));
  const headingId = `sub-runs-${stepName}`;

  return (
    <section aria-labelledby={headingId} data-testid="sub-runs" className="flex flex-col gap-2">
      <h3 id={headingId} className="text-sm font-semibold">
        Child runs
      </h3>
      <p className="text-sm" data-testid="sub-run-summary">
        {subRunSummaryText(subRuns)}
      </p>
      {subRuns.length >= FILTER_FROM && (
        <div className="flex flex-wrap items-end gap-3 text-sm">
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600 dark:text-zinc-400">State</span>
            <select
              value={state}
              onChange={(e) => {
                setState(e.target.value);
                setShown(SUB_RUN_PAGE);
              }}
              data-testid="sub-run-state"
              className="rounded-md border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900"
            >
              <option value="">all ({subRuns.length})</option>
              {counts.map((c) => {
                const label = subRunStateLabel(c.status);
                return (
                  <option key={label} value={label}>
                    {label} ({c.count})
                  </option>
                );
              })}
            </select>
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600 dark:text-zinc-400">Item or run ID contains</span>
            <input
              type="search"
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setShown(SUB_RUN_PAGE);
              }}
              data-testid="sub-run-search"
              className="rounded-md border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900"
            />
          </label>
        </div>
      )}
      <ul
        className="divide-y divide-zinc-200 rounded-md border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800"
        data-testid="sub-run-list"
      >
        {visible.map((r) => (
          <li
            key={r.run_id}
            className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-1.5"
            data-testid="sub-run"
            data-run-id={r.run_id}
          >
            <StatusBadge status={r.status ?? UNKNOWN_SUB_RUN_STATE} />
            <Link href={runHref(r.run_id)} className={linkClass}>
              {r.dag_name} <span className="font-mono text-xs">{r.run_id}</span>
            </Link>
            <ChildDuration timing={timingOf.get(r.run_id)} />
            {r.item !== undefined && (
              <span className="text-zinc-600 dark:text-zinc-400">
                item <code className="break-all">{r.item}</code>
              </span>
            )}
          </li>
        ))}
        {visible.length === 0 && (
          <li className="px-3 py-1.5 text-zinc-500 dark:text-zinc-400">No child run matches.</li>
        )}
      </ul>
      <ShowMore
        shown={visible.length}
        total={matching.length}
        page={SUB_RUN_PAGE}
        onMore={() => setShown((n) => n + SUB_RUN_PAGE)}
        testId="sub-run-shown"
      />
    </section>
  );
}

function ChildDuration({
  timing,
}: {
  timing: { duration_ms: number | null; started_at: string | null } | undefined;
}) {
  if (!timing) return null;
  return (
    <span className="text-zinc-600 tabular-nums dark:text-zinc-400" data-testid="sub-run-duration">
      {timing.duration_ms !== null
        ? formatDurationMs(timing.duration_ms)
        : timing.started_at
          ? 'still running'
          : 'not started'}
    </span>
  );
}
