// One worker's row: id and host, labels, a capacity bar, its running tasks and its heartbeat state.

import Link from 'next/link';
import type { WorkerSummary } from '../apiTypes';
import { linkClass, tdClass } from '../Panels';
import { StatusBadge, ToneBadge } from '../StatusBadge';
import { formatTime } from '../format';
import { formatAge } from '../durationText';
import { liveAgeMs } from '../liveAge';
import { capacityUse, workerStateTone, type WorkerState } from './workerState';

export function WorkerRow({
  worker: w,
  state,
  fetchedAtMs,
  nowMs,
}: {
  worker: WorkerSummary;
  state: WorkerState;
  fetchedAtMs: number;
  nowMs: number | null;
}) {
  const use = capacityUse(w.running.length, w.max_active_runs);
  const labels = Object.entries(w.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const age = liveAgeMs(w.heartbeat_age_ms, fetchedAtMs, nowMs) ?? w.heartbeat_age_ms;
  return (
    <tr data-testid="worker" data-worker-id={w.worker_id} data-state={state}>
      <td className={tdClass}>
        <div className="font-mono text-xs font-semibold break-all">{w.worker_id}</div>
        <div className="text-xs text-zinc-600 dark:text-zinc-400">{w.host}</div>
      </td>
      <td className={tdClass}>
        {labels.length === 0 ? (
          <span className="text-xs text-zinc-600 dark:text-zinc-400">no labels</span>
        ) : (
          <ul aria-label={`Labels of ${w.worker_id}`} className="flex flex-wrap gap-1">
            {labels.map(([k, v]) => (
              <li
                key={k}
                className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200"
              >
                {k}={v}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        <div className="tabular-nums">
          {use.text}
          <span className="sr-only"> runs of its capacity in use</span>
        </div>
        <div
          aria-hidden
          className="mt-1 h-1.5 w-24 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700"
        >
          <div
            className={`h-full rounded-full ${use.full ? 'bg-amber-700 dark:bg-amber-400' : 'bg-blue-600 dark:bg-blue-400'}`}
            style={{ width: `${Math.round(use.fraction * 100)}%` }}
          />
        </div>
      </td>
      <td className={tdClass}>
        {w.running.length === 0 ? (
          <span className="text-xs text-zinc-600 dark:text-zinc-400">idle</span>
        ) : (
          <ul className="flex flex-col gap-1">
            {w.running.map((r) => (
              <li key={`${r.run_id}:${r.attempt}`} className="flex flex-wrap items-center gap-2">
                <Link
                  href={`/runs/${encodeURIComponent(r.run_id)}`}
                  className={`${linkClass} font-mono text-xs`}
                >
                  {r.run_id}
                </Link>
                <span className="text-xs">{r.dag_name ?? 'unknown DAG'}</span>
                <StatusBadge status={r.status ?? 'unknown'} />
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        <ToneBadge tone={workerStateTone(state)}>{state}</ToneBadge>
        <div className="mt-1 text-xs">
          {formatAge(age)} ago
          <span className="block text-zinc-600 dark:text-zinc-400">{formatTime(w.last_heartbeat_at)}</span>
        </div>
      </td>
    </tr>
  );
}
