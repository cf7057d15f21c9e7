'use client';
// One waiting run: what it is, where it waits, why (its conditions), for how long, when its hold runs out.

import Link from 'next/link';
import type { WaitingRun } from '@/components/apiTypes';
import { buttonClass, linkClass, tdClass } from '../Panels';
import { formatTime } from '../format';
import { ConditionList } from '../runs/ConditionList';
import { formatCountdown, holdText } from './waitText';

const KIND_STYLES: Record<WaitingRun['kind'], string> = {
  queued: 'bg-sky-100 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800',
  held: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800',
  dispatched:
    'bg-indigo-100 text-indigo-800 ring-indigo-300 dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-800',
};

export function WaitingRunRow({
  item,
  elapsedMs,
  selected,
  onSelect,
  onCancel,
}: {
  item: WaitingRun;
  /** Time since the listing arrived, added to its durations. */
  elapsedMs: number;
  selected: boolean;
  onSelect: (selected: boolean) => void;
  onCancel: () => void;
}) {
  const href = `/runs/${encodeURIComponent(item.run_id)}`;
  return (
    <tr
      data-testid="waiting-run"
      data-run-id={item.run_id}
      data-kind={item.kind}
      data-reason={item.reason ?? ''}
      className={selected ? 'bg-blue-50 dark:bg-blue-950/40' : undefined}
    >
      <td className={`${tdClass} w-8`}>
        <input
          type="checkbox"
          checked={selected}
          onChange={(e) => onSelect(e.currentTarget.checked)}
          aria-label={`Select run ${item.run_id}`}
          className="size-4 accent-blue-600 focus-visible:outline-2 focus-visible:outline-blue-500"
        />
      </td>
      <td className={tdClass}>
        <Link href={href} className={`${linkClass} font-mono text-xs break-all`}>
          {item.run_id}
        </Link>
        <div className="mt-1 flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
          <span
            className={`rounded-full px-2 py-0.5 font-medium ring-1 ring-inset ${KIND_STYLES[item.kind]}`}
            data-testid="waiting-kind"
          >
            {item.kind}
          </span>
          {item.trigger_type && <span>{item.trigger_type}</span>}
          {item.schedule_time && <span>slot {formatTime(item.schedule_time)}</span>}
        </div>
        {item.params.length > 0 && (
          <code className="mt-1 block text-xs break-all text-zinc-600 dark:text-zinc-300">
            {item.params.join(' ')}
          </code>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        <Link href={`/dags/${encodeURIComponent(item.dag_name)}`} className={linkClass}>
          {item.dag_name}
        </Link>
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        {item.queue ?? <span className="text-zinc-500 dark:text-zinc-400">workers</span>}
        {item.position !== null && (
          <div className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="waiting-position">
            #{item.position} in line
          </div>
        )}
      </td>
      <td className={`${tdClass} font-mono text-xs`} data-testid="waiting-selector">
        {item.selector_text ?? <span className="font-sans text-zinc-500 dark:text-zinc-400">—</span>}
      </td>
      <td className={`${tdClass} max-w-md text-xs`}>
        {item.problem && <p className="mb-1 text-red-700 dark:text-red-300">{item.problem}</p>}
        {item.conditions.length > 0 ? (
          <ConditionList conditions={item.conditions} />
        ) : (
          !item.problem && <span className="text-zinc-500 dark:text-zinc-400">waiting for its turn</span>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`} title={`since ${formatTime(item.waiting_since)}`}>
        <span data-testid="waited">{formatCountdown(item.waited_ms + elapsedMs)}</span>
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        {item.hold_remaining_ms !== null ? (
          <span
            data-testid="hold-expires"
            title={`at ${formatTime(item.hold_until)}`}
            className={
              item.hold_remaining_ms - elapsedMs <= 0
                ? 'font-medium text-red-700 dark:text-red-300'
                : 'text-amber-800 dark:text-amber-200'
            }
          >
            {holdText(item.hold_remaining_ms - elapsedMs)}
          </span>
        ) : (
          <span className="text-zinc-500 dark:text-zinc-400">—</span>
        )}
      </td>
      <td className={`${tdClass} text-right`}>
        <div className="flex justify-end gap-2">
          <Link href={href} className={buttonClass('secondary')} aria-label={`Open run ${item.run_id}`}>
            Open
          </Link>
          <button
            type="button"
            className={buttonClass('danger')}
            onClick={onCancel}
            aria-label={`Cancel run ${item.run_id}`}
            data-testid="cancel-run"
          >
            Cancel
          </button>
        </div>
      </td>
    </tr>
  );
}
