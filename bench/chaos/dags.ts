// The DAGs the chaos soak schedules: local and worker DAGs, on whole minutes and on a seconds field (many
// slots). Every step appends a start and an end line to a marker file outside the data directory, so the
// analysis counts executions of each slot, not run records.

import { parseSchedule } from '../../server/core/schedule';
import type { ScheduleSpec } from '../../server/core/types';

/** One DAG of the soak and where its runs execute. */
export interface ChaosDag {
  name: string;
  schedule: string;
  where: 'local' | 'worker';
  /** How long the step sleeps between its two marker lines. */
  stepSeconds: number;
  /**
   * The DAG's own catch-up window. The seconds DAGs have one, so a clean handover (which replays only this
   * window, by design) loses nothing either; the minute DAGs rely on the first tick running the current minute.
   */
  catchupWindow: string | null;
}

/** Labels of the soak's workers and the selector of its worker DAGs. */
export const WORKER_LABELS = { pool: 'chaos' } as const;

export const CHAOS_DAGS: readonly ChaosDag[] = [
  { name: 'local-minute', schedule: '* * * * *', where: 'local', stepSeconds: 0, catchupWindow: null },
  { name: 'local-every-4s', schedule: '*/4 * * * * *', where: 'local', stepSeconds: 0, catchupWindow: '1m' },
  { name: 'worker-minute', schedule: '* * * * *', where: 'worker', stepSeconds: 1, catchupWindow: null },
  {
    name: 'worker-every-5s',
    schedule: '*/5 * * * * *',
    where: 'worker',
    stepSeconds: 2,
    catchupWindow: '1m',
  },
];

/** The YAML of a soak DAG whose step writes to `markerFile`. */
export function dagYaml(dag: ChaosDag, markerFile: string): string {
  const line = (what: string) =>
    `echo "$DAG_NAME $DAG_RUN_SCHEDULE_TIME $DAG_RUN_ID ${what} $(date +%s%3N)" >> ${markerFile}`;
  const body = [line('start'), ...(dag.stepSeconds > 0 ? [`sleep ${dag.stepSeconds}`] : []), line('end')];
  const selector = Object.entries(WORKER_LABELS)
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join('');
  return (
    `schedule: "${dag.schedule}"\n` +
    (dag.catchupWindow ? `catchup_window: ${dag.catchupWindow}\n` : '') +
    (dag.where === 'worker' ? `worker_selector:\n${selector}` : '') +
    `steps:\n  - name: mark\n    script: |\n${body.map((l) => `      ${l}\n`).join('')}`
  );
}

/** The parsed schedule of a soak DAG. */
export function scheduleOf(dag: ChaosDag): ScheduleSpec {
  const parsed = parseSchedule(dag.schedule);
  if (!parsed.ok) throw new Error(`${dag.name}: ${parsed.error}`);
  return parsed.schedule;
}
