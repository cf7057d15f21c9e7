// The failover history, newest first: when, from which instance to which, why, and the measured gap.

import type { FailoverView } from '../apiTypes';
import { EmptyState, tableClass, TableHead, tdClass } from '../Panels';
import { ToneBadge } from '../StatusBadge';
import { formatTime } from '../format';
import { formatGap } from '../durationText';
import { failoverCauseText, failoverCauseTone } from './failoverCause';
import { ageSinceText, type LiveClock } from './liveClock';

export function FailoverHistory({ failovers, clock }: { failovers: FailoverView[]; clock: LiveClock }) {
  return (
    <section aria-labelledby="failovers-heading" className="flex flex-col gap-3">
      <h2 id="failovers-heading" className="text-lg font-semibold">
        Failover history
      </h2>
      {failovers.length === 0 ? (
        <EmptyState title="No failover recorded yet" testId="failovers-empty">
          Each time a scheduler takes the lock (at first start, after a clean handover or from a failed
          holder), it shows here with the gap without an active scheduler.
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
          <table className={tableClass}>
            <caption className="sr-only">Failovers, newest first</caption>
            <TableHead columns={['When', 'From → to', 'Cause', { label: 'Gap', className: 'text-right' }]} />
            <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
              {failovers.map((f) => (
                <FailoverRow key={f.event_id} failover={f} clock={clock} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function FailoverRow({ failover: f, clock }: { failover: FailoverView; clock: LiveClock }) {
  // The gap between two hosts' wall clocks is the figure the operator compares with T + 2R; the new holder's
  // own timing stands in when the previous holder's last renewal is unknown.
  const gapMs = f.gap_ms ?? f.observed_gap_ms;
  return (
    <tr
      data-testid="failover-entry"
      data-to={f.to_instance}
      data-from={f.from_instance ?? ''}
      data-cause={f.cause}
      data-gap-ms={gapMs === null ? '' : String(Math.round(gapMs))}
    >
      <td className={`${tdClass} whitespace-nowrap`}>
        <div>{formatTime(f.time)}</div>
        <div className="text-xs text-zinc-600 dark:text-zinc-400">{ageSinceText(clock, f.time)} ago</div>
      </td>
      <td className={tdClass}>
        <Instance id={f.from_instance} host={f.from_host} />
        <span aria-hidden className="px-1.5 text-zinc-500 dark:text-zinc-400">
          →
        </span>
        <span className="sr-only"> to </span>
        <Instance id={f.to_instance} host={f.to_host} />
      </td>
      <td className={tdClass}>
        <ToneBadge tone={failoverCauseTone(f.cause)}>{failoverCauseText(f.cause)}</ToneBadge>
      </td>
      <td className={`${tdClass} text-right whitespace-nowrap tabular-nums`}>
        <div className="font-medium">{formatGap(gapMs)}</div>
        {f.gap_ms !== null && f.observed_gap_ms !== null && (
          <div className="text-xs text-zinc-600 dark:text-zinc-400">
            {formatGap(f.observed_gap_ms)} by the new holder&apos;s clock
          </div>
        )}
      </td>
    </tr>
  );
}

function Instance({ id, host }: { id: string | null; host: string | null }) {
  if (id === null) return <span className="text-zinc-600 dark:text-zinc-400">none</span>;
  return (
    <span className="font-mono text-xs">
      {id}
      {host && !id.includes(host) && (
        <span className="font-sans text-zinc-600 dark:text-zinc-400"> ({host})</span>
      )}
    </span>
  );
}
