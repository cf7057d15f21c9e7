// The per-DAG metrics operators alert on: finished runs by status, the run duration histogram (Dagu's name
// and buckets), the last success, the last resume of a suspended schedule, and each scheduled DAG's expected
// interval. The run figures come from RunTotals (folded from the event log as runs end), never from the run
// history; a scrape only reads the events appended since the previous one.

import type { Registry } from 'prom-client';
import { DURATION_BUCKETS, emptyTotals, FINISHED_STATUSES } from './runAggregate';
import type { RunTotals } from './runTotals';
import type { DagSchedules } from './scheduleIntervals';

export interface RunTotalsMetricsDeps {
  totals: Pick<RunTotals, 'catchUp' | 'totals'>;
  schedules: { current(): Promise<DagSchedules> };
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A metric whose values are computed at each scrape, in prom-client's registry format. */
function register(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'gauge' | 'histogram',
  labelNames: string[],
  values: () => Promise<Sample[]>,
): void {
  registry.registerMetric({
    name,
    help,
    type,
    labelNames,
    aggregator: 'sum',
    async get() {
      return { name, help, type, aggregator: 'sum', values: await values() };
    },
    reset() {},
  } as unknown as Parameters<Registry['registerMetric']>[0]);
}

export function registerRunTotalsMetrics(registry: Registry, d: RunTotalsMetricsDeps): void {
  // One catch-up and one read of the DAG files serve all the metrics of a scrape.
  const both = async () => {
    const [, schedules] = await Promise.all([d.totals.catchUp(), d.schedules.current()]);
    return { totals: d.totals.totals, schedules };
  };
  /** Every DAG with a file or with finished runs, sorted: each gets its series (zeros too) from the start. */
  const dagsOf = (s: Awaited<ReturnType<typeof both>>) =>
    [...new Set([...s.schedules.names, ...Object.keys(s.totals.dags)])].sort();

  register(
    registry,
    'dagu_dag_runs_finished_total',
    'Finished runs of each DAG by end status, counted from the event log as runs end (every DAG and status ' +
      'starts at 0, so the first failure shows as an increase)',
    'counter',
    ['dag', 'status'],
    async () => {
      const s = await both();
      return dagsOf(s).flatMap((dag) => {
        const t = s.totals.dags[dag] ?? emptyTotals();
        return FINISHED_STATUSES.map((status) => ({ labels: { dag, status }, value: t.finished[status] }));
      });
    },
  );

  register(
    registry,
    'dagu_dag_run_duration_seconds',
    "Duration of finished runs of each DAG in seconds, from start to end (Dagu's buckets)",
    'histogram',
    ['dag'],
    async () => {
      const s = await both();
      return dagsOf(s).flatMap((dag) => {
        const t = s.totals.dags[dag] ?? emptyTotals();
        let cumulative = 0;
        const buckets = [...DURATION_BUCKETS, Infinity].map((le, i) => {
          cumulative += t.buckets[i];
          return {
            metricName: 'dagu_dag_run_duration_seconds_bucket',
            labels: { dag, le: le === Infinity ? '+Inf' : le },
            value: cumulative,
          };
        });
        return [
          ...buckets,
          { metricName: 'dagu_dag_run_duration_seconds_sum', labels: { dag }, value: t.duration_sum_seconds },
          { metricName: 'dagu_dag_run_duration_seconds_count', labels: { dag }, value: t.duration_count },
        ];
      });
    },
  );

  register(
    registry,
    'dagu_dag_last_success_timestamp_seconds',
    'When the latest successful run of each DAG finished (Unix seconds); no series before its first success',
    'gauge',
    ['dag'],
    async () => {
      const s = await both();
      return dagsOf(s).flatMap((dag) => {
        const ms = s.totals.dags[dag]?.last_success_ms ?? null;
        return ms === null ? [] : [{ labels: { dag }, value: ms / 1000 }];
      });
    },
  );

  register(
    registry,
    'dagu_dag_last_resume_timestamp_seconds',
    'When the schedule of each DAG was last resumed after a suspend (Unix seconds); no series before one',
    'gauge',
    ['dag'],
    async () => {
      const s = await both();
      return dagsOf(s).flatMap((dag) => {
        const ms = s.totals.dags[dag]?.last_resume_ms ?? null;
        return ms === null ? [] : [{ labels: { dag }, value: ms / 1000 }];
      });
    },
  );

  register(
    registry,
    'dagu_dag_schedule_interval_seconds',
    'Longest gap between consecutive slots of each scheduled DAG over its coming slots (seconds); no series ' +
      'for a DAG without a cron schedule or while it is suspended',
    'gauge',
    ['dag'],
    async () => {
      const s = await both();
      return [...s.schedules.intervals.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([dag, seconds]) => ({ labels: { dag }, value: seconds }));
    },
  );
}
