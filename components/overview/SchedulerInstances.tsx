// The scheduler instances: the active one first, outlined in green and labelled "active"; an alert when no
// instance is active; each with host, pid, role, since when, the last lock renewal it saw and its health port.

import type { ReactNode } from 'react';
import type { FailoverSettings, Overview, SchedulerInstanceView } from '../apiTypes';
import { EmptyState, Field } from '../Panels';
import { ToneBadge } from '../StatusBadge';
import { formatTime } from '../format';
import { instanceRoleTone, sortInstances } from './instanceOrder';
import { ageSinceText, ageText, type LiveClock } from './liveClock';
import { standbyCount, takeoverText } from './standbyText';

export function SchedulerInstances({ overview, clock }: { overview: Overview; clock: LiveClock }) {
  const activeId = overview.active_instance;
  const instances = sortInstances(overview.instances, activeId);
  return (
    <section aria-labelledby="schedulers-heading" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="schedulers-heading" className="text-lg font-semibold">
          Schedulers
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-300">
          Active scheduler:{' '}
          <span
            data-testid="active-instance"
            className="font-mono font-semibold text-zinc-900 dark:text-zinc-50"
          >
            {activeId ?? 'none'}
          </span>
        </p>
      </div>
      {activeId === null && <NoActiveAlert settings={overview.settings} instances={instances} />}
      {instances.length === 0 ? (
        <EmptyState title="No scheduler has registered yet" testId="schedulers-empty">
          Start one with <code className="font-mono">dagu scheduler</code> (or{' '}
          <code className="font-mono">dagu start-all</code>); start a second one on another host as a standby.
        </EmptyState>
      ) : (
        <ul aria-label="Scheduler instances" className="grid gap-3 md:grid-cols-2">
          {instances.map((i) => (
            <InstanceCard key={i.id} instance={i} active={i.id === activeId} clock={clock} />
          ))}
        </ul>
      )}
    </section>
  );
}

function NoActiveAlert({
  settings,
  instances,
}: {
  settings: FailoverSettings;
  instances: SchedulerInstanceView[];
}) {
  const takeover = takeoverText(standbyCount(instances), settings.takeover_bound);
  return (
    <div
      role="alert"
      data-testid="no-active-scheduler"
      className="rounded-lg border-2 border-red-600 bg-red-50 px-4 py-3 text-red-900 dark:border-red-500 dark:bg-red-950 dark:text-red-100"
    >
      <p className="font-semibold">No active scheduler</p>
      <p className="mt-1 text-sm">
        No instance holds the scheduler lock, so scheduled runs are not being started.{' '}
        {takeover ?? (
          <>
            No standby is running: start one with <code className="font-mono">dagu scheduler</code>.
          </>
        )}
      </p>
    </div>
  );
}

function InstanceCard({
  instance: i,
  active,
  clock,
}: {
  instance: SchedulerInstanceView;
  active: boolean;
  clock: LiveClock;
}) {
  const frame = active
    ? 'border-2 border-emerald-600 bg-emerald-50 shadow-sm dark:border-emerald-500 dark:bg-emerald-950'
    : i.role === 'lost'
      ? 'border border-red-300 dark:border-red-800'
      : 'border border-zinc-200 dark:border-zinc-800';
  const headingId = `instance-${i.id}`;
  return (
    <li
      data-testid="scheduler-instance"
      data-instance-id={i.id}
      data-role={i.role}
      aria-labelledby={headingId}
      className={`rounded-lg p-4 ${frame}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="font-mono text-sm font-semibold break-all">
          {i.id}
        </h3>
        {active ? (
          <span className="inline-flex items-center gap-1.5 rounded-full bg-emerald-700 px-2.5 py-0.5 text-sm font-bold text-white dark:bg-emerald-400 dark:text-emerald-950">
            <span aria-hidden className="size-2 rounded-full bg-current" />
            active
          </span>
        ) : (
          <ToneBadge tone={instanceRoleTone(i.role)}>{i.role}</ToneBadge>
        )}
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-3 text-sm">
        <Field label="Host">{i.host}</Field>
        <Field label="PID">{i.pid}</Field>
        <Field label="Role">{i.role}</Field>
        <Field label="Health port">{i.port === 0 ? 'disabled' : i.port}</Field>
        <Field label="Since">
          {formatTime(i.since)}
          <Note>for {ageSinceText(clock, i.since)}</Note>
        </Field>
        <Field label="Last renewal seen">
          {i.last_renewal_seen ? formatTime(i.last_renewal_seen) : 'none yet'}
          {i.last_renewal_age_ms !== null && <Note>{ageText(clock, i.last_renewal_age_ms)} ago</Note>}
        </Field>
      </dl>
      <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">
        Record updated {ageText(clock, i.updated_age_ms)} ago
        {i.lock_holder !== null && i.lock_holder !== i.id && (
          <>
            {' '}
            · sees <span className="font-mono">{i.lock_holder}</span> holding the lock
          </>
        )}
      </p>
    </li>
  );
}

function Note({ children }: { children: ReactNode }) {
  return <span className="block text-xs text-zinc-600 dark:text-zinc-400">{children}</span>;
}
