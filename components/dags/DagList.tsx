'use client';
// The DAG list: every DAG file with its schedule, next run, last run and a "Run now" button; invalid files
// are listed with their errors so a typo never makes a DAG silently disappear. DAGs that set `group` are
// listed under their group's heading, which collapses (remembered in the browser).

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import type { DagSummary } from '@/components/apiTypes';
import {
  EmptyState,
  ErrorPanel,
  linkClass,
  LoadingPanel,
  StaleNotice,
  tableClass,
  TableHead,
  tdClass,
} from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { errorText } from '../errorText';
import { formatRelative, formatTime } from '../format';
import { dagsQuery } from '../queries';
import { useNow } from '../useNow';
import { COLLAPSED_GROUPS_KEY, groupDags, parseCollapsed } from './dagGroups';
import { RunNowButton } from './RunNowButton';
import { SuspendedBadge, SuspendToggle } from './SuspendToggle';

const COLUMNS = 5;

/** The names of the collapsed groups, kept in localStorage (read after the first render: no server mismatch). */
function useCollapsedGroups(): [Set<string>, (group: string) => void] {
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  useEffect(() => {
    try {
      setCollapsed(parseCollapsed(window.localStorage.getItem(COLLAPSED_GROUPS_KEY)));
    } catch {
      /* storage blocked: nothing collapsed */
    }
  }, []);
  const toggle = (group: string) =>
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (!next.delete(group)) next.add(group);
      try {
        window.localStorage.setItem(COLLAPSED_GROUPS_KEY, JSON.stringify([...next]));
      } catch {
        /* storage blocked or full: the state lasts for this page only */
      }
      return next;
    });
  return [collapsed, toggle];
}

export function DagList() {
  const { data, error, isPending, refetch } = useQuery(dagsQuery());
  const now = useNow();
  const [collapsed, toggle] = useCollapsedGroups();
  if (isPending) return <LoadingPanel label="Loading DAGs…" />;
  if (error && !data)
    return <ErrorPanel title="Cannot load DAGs" message={errorText(error)} onRetry={() => void refetch()} />;
  if (data.dags.length === 0) {
    return (
      <EmptyState title="No DAGs yet" testId="dags-empty">
        Put a DAG file (for example <code className="font-mono">hello.yaml</code>) in the <code>dags/</code>{' '}
        directory of <code>DAGU_HOME</code>; it shows up here within a few seconds.
      </EmptyState>
    );
  }
  return (
    <>
      {error && <StaleNotice message={errorText(error)} />}
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table className={tableClass} data-testid="dag-table">
          <TableHead
            columns={[
              'Name',
              'Schedule',
              'Next slot',
              'Last run',
              { label: <span className="sr-only">Actions</span> },
            ]}
          />
          {groupDags(data.dags).map((group) => {
            const closed = group.name !== null && collapsed.has(group.name);
            return (
              <tbody
                key={group.name ?? ''}
                className="divide-y divide-zinc-200 border-t border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
                data-testid={group.name === null ? 'dag-ungrouped' : `dag-group-${group.name}`}
              >
                {group.name !== null && (
                  <tr className="bg-zinc-50 dark:bg-zinc-900">
                    <th scope="rowgroup" colSpan={COLUMNS} className={`${tdClass} text-left`}>
                      <button
                        type="button"
                        aria-expanded={!closed}
                        onClick={() => toggle(group.name!)}
                        className="inline-flex items-center gap-1.5 font-medium focus-visible:outline-2 focus-visible:outline-blue-500"
                      >
                        <span aria-hidden="true">{closed ? '▸' : '▾'}</span>
                        {group.name}
                        <span className="text-xs font-normal text-zinc-500 dark:text-zinc-400">
                          {group.dags.length} {group.dags.length === 1 ? 'DAG' : 'DAGs'}
                        </span>
                      </button>
                    </th>
                  </tr>
                )}
                {!closed && group.dags.map((dag) => <DagRow key={dag.file} dag={dag} now={now} />)}
              </tbody>
            );
          })}
        </table>
      </div>
    </>
  );
}

function DagRow({ dag, now }: { dag: DagSummary; now: number | null }) {
  const invalid = dag.errors.length > 0;
  return (
    <tr data-testid={`dag-row-${dag.name}`}>
      <td className={tdClass}>
        <Link href={`/dags/${encodeURIComponent(dag.name)}`} className={linkClass}>
          {dag.name}
        </Link>
        {dag.suspended && (
          <>
            {' '}
            <SuspendedBadge dag={dag.name} suspendedAt={dag.suspended_at} />
          </>
        )}
        {dag.description && <p className="text-xs text-zinc-500 dark:text-zinc-400">{dag.description}</p>}
        {dag.tags.length > 0 && (
          <p className="mt-1 flex flex-wrap gap-1">
            {dag.tags.map((t) => (
              <span
                key={t}
                className="rounded bg-zinc-100 px-1.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300"
              >
                {t}
              </span>
            ))}
          </p>
        )}
        {invalid && (
          <div className="mt-1 flex flex-col gap-0.5">
            <StatusBadge status="invalid" />
            <ul className="text-xs text-red-700 dark:text-red-300">
              {dag.errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          </div>
        )}
      </td>
      <td className={`${tdClass} font-mono text-xs`}>
        {dag.schedule.length > 0 ? (
          dag.schedule.map((s) => <div key={s}>{s}</div>)
        ) : (
          <span className="text-zinc-400">—</span>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        {dag.next_run ? (
          <>
            <div>{formatTime(dag.next_run)}</div>
            <div className="text-xs text-zinc-500 dark:text-zinc-400">
              {formatRelative(dag.next_run, now)}
            </div>
          </>
        ) : (
          <span className="text-zinc-400">—</span>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        {dag.last_run ? (
          <Link
            href={`/runs/${encodeURIComponent(dag.last_run.run_id)}`}
            className="inline-flex flex-col items-start gap-0.5 focus-visible:outline-2 focus-visible:outline-blue-500"
          >
            <span className="sr-only">Last run of {dag.name}: </span>
            <StatusBadge status={dag.last_run.status} testId={`dag-last-status-${dag.name}`} />
            <span className="text-xs text-zinc-500 dark:text-zinc-400">
              {formatTime(dag.last_run.started_at ?? dag.last_run.created_at)}
            </span>
          </Link>
        ) : (
          <span className="text-zinc-400">never run</span>
        )}
      </td>
      <td className={`${tdClass} text-right`}>
        <div className="flex items-start justify-end gap-2">
          <SuspendToggle dag={dag.name} suspended={dag.suspended} suspendedAt={dag.suspended_at} />
          <RunNowButton dag={dag.name} disabled={invalid} />
        </div>
      </td>
    </tr>
  );
}
