// Reading DAGs for the console and the API: the list with next run and last run, and one DAG in full.

import path from 'node:path';
import { formatDagError } from '../core/dag/dagError';
import { assertDagName, isValidDagName } from '../core/names';
import { isoUtc } from '../core/runStatus';
import { nextSlot } from '../core/schedule';
import type { DagSpec, ScheduleSpec } from '../core/types';
import { listDagFiles, loadDag, loadDagByName } from '../store/dagCatalog';
import type { SuspendRecord } from '../store/suspendFlags';
import type { RunSummary } from '../store/types';
import { dagParseCache } from './dagHistory';
import { NotFoundError } from './errors';
import type { Services } from './services';

/** One DAG file as the DAG list shows it. A file with errors is listed too, with its errors. */
export interface DagSummary {
  name: string;
  /** File path relative to the DAGs directory. */
  file: string;
  description: string;
  /** The DAG's `group`: the console lists the DAGs of a group together. Empty when none. */
  group: string;
  tags: string[];
  /** Schedule expressions as written. */
  schedule: string[];
  /** RFC 3339 UTC time of the next slot over all schedules, or null without a schedule or while suspended. */
  next_run: string | null;
  /** Whether the DAG's schedule is suspended (`dagu suspend`): no slot of it runs until it is resumed. */
  suspended: boolean;
  /** When it was suspended, if its flag says (a flag Dagu wrote does not). */
  suspended_at: string | null;
  queue: string | null;
  last_run: RunSummary | null;
  /** Validation errors (file, line, field); a DAG with errors cannot run. */
  errors: string[];
  warnings: string[];
}

/** One DAG in full: its parsed definition (null when invalid) and its recent runs. */
export interface DagDetail extends DagSummary {
  dag: DagSpec | null;
  recent_runs: RunSummary[];
}

export const RECENT_RUNS = 10;

export async function listDags(svc: Services): Promise<{ dags: DagSummary[] }> {
  const [files, flags] = await Promise.all([
    listDagFiles(svc.config.paths.dags_dir),
    svc.suspendFlags.list(),
  ]);
  const dags: DagSummary[] = [];
  for (const entry of files) {
    const detail = await describe(svc, entry.file, 1, flags);
    if (!detail) continue;
    const { dag: _dag, recent_runs: _recent, ...summary } = detail;
    dags.push(summary);
  }
  dags.sort((a, b) => a.name.localeCompare(b.name));
  return { dags };
}

export async function getDag(svc: Services, name: string): Promise<DagDetail> {
  assertDagName(name);
  const flag = await svc.suspendFlags.get(name);
  const detail = await describe(svc, name, RECENT_RUNS, new Map(flag ? [[name, flag]] : []));
  if (!detail) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  return detail;
}

/** Loads one DAG (by name or file) with its run history; null when it does not exist (any more). */
async function describe(
  svc: Services,
  nameOrFile: string,
  runs: number,
  flags: Map<string, SuspendRecord>,
): Promise<DagDetail | null> {
  const dagsDir = svc.config.paths.dags_dir;
  // Files come from the listing (absolute); a name from a request is looked up in the DAGs directory only.
  const loaded = path.isAbsolute(nameOrFile)
    ? await loadDag(dagsDir, nameOrFile)
    : await loadDagByName(dagsDir, nameOrFile, { cache: dagParseCache(svc) });
  if (!loaded.ok && 'notFound' in loaded) return null;
  const dag = loaded.ok ? loaded.dag : null;
  const file = dag?.file ?? (path.isAbsolute(nameOrFile) ? nameOrFile : null);
  const name = dag?.name ?? (file ? path.basename(file).replace(/\.ya?ml$/, '') : nameOrFile);
  const flag = flags.get(name) ?? null;
  const recent = isValidDagName(name) ? (await svc.runs.listRuns({ dag: name, limit: runs })).items : [];
  return {
    name,
    file: file ? path.relative(dagsDir, file) : `${name}.yaml`,
    description: dag?.description ?? '',
    group: dag?.group ?? '',
    tags: dag?.tags ?? [],
    schedule: dag?.schedule.map((s) => s.expression) ?? [],
    next_run: dag && !flag ? nextRun(dag.schedule, svc.clock.nowMs()) : null,
    suspended: flag !== null,
    suspended_at: flag?.suspended_at ?? null,
    queue: dag?.queue ?? null,
    last_run: recent[0] ?? null,
    errors: loaded.ok ? [] : loaded.errors.map(formatDagError),
    warnings: loaded.ok ? loaded.warnings.map((w) => (typeof w === 'string' ? w : formatDagError(w))) : [],
    dag: dag && withoutSecrets(dag),
    recent_runs: recent,
  };
}

/** The definition as the console may show it: the SMTP password (and a local sub-DAG's) is never served. */
function withoutSecrets(dag: DagSpec): DagSpec {
  const local = dag.local_dags
    ? Object.fromEntries(Object.entries(dag.local_dags).map(([k, d]) => [k, withoutSecrets(d)]))
    : undefined;
  return {
    ...dag,
    ...(dag.smtp ? { smtp: { ...dag.smtp, password: dag.smtp.password === '' ? '' : '********' } } : {}),
    ...(local ? { local_dags: local } : {}),
  };
}

function nextRun(schedules: ScheduleSpec[], nowMs: number): string | null {
  let next: number | null = null;
  for (const s of schedules) {
    const t = nextSlot(s, nowMs);
    if (t !== null && (next === null || t < next)) next = t;
  }
  return next === null ? null : isoUtc(next);
}
