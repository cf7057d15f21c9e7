'use client';
// The console's home: which scheduler is active, the failover settings and history, and what runs and
// workers there are. Polled every second; ages tick every second in between.

import { useQuery } from '@tanstack/react-query';
import { ErrorPanel, LoadingPanel, StaleNotice } from '../Panels';
import { errorText } from '../errorText';
import { useNow } from '../useNow';
import { FailoverHistory } from './FailoverHistory';
import { FailoverSettingsPanel } from './FailoverSettingsPanel';
import { RunCounts } from './RunCounts';
import { SchedulerInstances } from './SchedulerInstances';
import { overviewQuery } from './queries';

export function OverviewView() {
  const { data, error, isPending, refetch, dataUpdatedAt } = useQuery(overviewQuery());
  const nowMs = useNow();
  if (isPending) return <LoadingPanel label="Loading the overview…" />;
  if (error && !data)
    return (
      <ErrorPanel
        title="Cannot load the overview"
        message={errorText(error)}
        onRetry={() => void refetch()}
      />
    );
  const clock = { generatedAt: data.generated_at, fetchedAtMs: dataUpdatedAt, nowMs };
  return (
    <div className="flex flex-col gap-8">
      {error && <StaleNotice message={errorText(error)} />}
      <SchedulerInstances overview={data} clock={clock} />
      <RunCounts counts={data.counts} />
      <FailoverSettingsPanel settings={data.settings} />
      <FailoverHistory failovers={data.failovers} clock={clock} />
    </div>
  );
}
