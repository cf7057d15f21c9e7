// `dagu history [dag]`: past runs, newest first, with Dagu's filters (`--from/--to` or `--last`, `--status`,
// `--run-id`, `--labels`, `--limit`) and formats (`--format table|json|csv`; `--json` for short). JSON uses
// the keys of Dagu's `history --format json` (each run's `labels` too), so scripts written for it work.

import { matchesLabelFilters } from '../../core/runLabels';
import type { RunStatus } from '../../core/types';
import type { RunSummary } from '../../store/types';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, UsageError } from '../exit';
import { loadDagOrThrow } from '../loadDagOrThrow';
import { formatElapsed, readHistoryFlags, type HistoryFlags, type HistoryQuery } from './historyQuery';
import { csvField, formatTable } from './table';
import { isDagPath } from './target';
import { assertDagName } from '../../core/names';
import { cliControlPlane } from '../openControlPlane';

type Opts = GlobalOptions & HistoryFlags & { format?: string; json?: boolean };

const FORMATS = ['table', 'json', 'csv'] as const;
const PAGE = 500;

export async function historyCommand(dagArg: string | undefined, opts: Opts): Promise<number> {
  const format = opts.json ? 'json' : (opts.format ?? 'table');
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: use table, json or csv`);
  const nowMs = Date.now();
  const read = readHistoryFlags(opts, nowMs);
  if (!read.ok) throw new UsageError(read.error);
  const { query } = read;
  if (query.warning) process.stderr.write(`dagu: ${query.warning}\n`);
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const cp = await cliControlPlane(config, logger);
  let dag: string | undefined;
  if (dagArg !== undefined)
    dag = isDagPath(dagArg) ? (await loadDagOrThrow(config, dagArg)).name : assertDagName(dagArg);
  const store = cp.runs;

  const rows: RunStatus[] = [];
  let cursor: string | undefined;
  scan: for (;;) {
    const page = await store.listRuns({ dag, limit: PAGE, cursor });
    for (const summary of page.items) {
      const created = Date.parse(summary.created_at);
      // Newest first by creation: once past the window's start, nothing older can match.
      if (query.fromMs !== null && created < query.fromMs) break scan;
      if (!matches(summary, created, query)) continue;
      const r = await store.readStatus(summary.run_id);
      if (r.kind === 'ok') rows.push(r.status);
      if (rows.length >= query.limit) break scan;
    }
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
  }

  if (rows.length === 0) process.stderr.write('No DAG runs found matching the specified filters.\n');
  if (format === 'json') {
    process.stdout.write(
      `${JSON.stringify(
        rows.map((s) => jsonEntry(s, nowMs)),
        null,
        2,
      )}\n`,
    );
  } else if (format === 'csv') {
    const lines = [HEADERS.join(','), ...rows.map((s) => cells(s, nowMs).map(csvField).join(','))];
    process.stdout.write(`${lines.join('\n')}\n`);
  } else if (rows.length > 0) {
    process.stdout.write(
      `${formatTable(
        HEADERS,
        rows.map((s) => cells(s, nowMs)),
      ).join('\n')}\n`,
    );
  }
  return EXIT_OK;
}

function matches(s: RunSummary, createdMs: number, q: HistoryQuery): boolean {
  if (q.toMs !== null && createdMs > q.toMs) return false;
  if (q.statuses !== null && (s.status === 'corrupt' || !q.statuses.has(s.status))) return false;
  if (q.runIdPart !== null && !s.run_id.includes(q.runIdPart)) return false;
  if (!matchesLabelFilters(s.labels ?? [], q.labelFilters)) return false;
  return true;
}

const HEADERS = ['DAG NAME', 'RUN ID', 'STATUS', 'STARTED (UTC)', 'DURATION', 'PARAMS'];

function cells(s: RunStatus, nowMs: number): string[] {
  const params = s.params.join(' ');
  return [
    s.dag_name,
    s.run_id,
    s.status,
    s.started_at ? s.started_at.replace('T', ' ').replace(/(\.\d+)?Z$/, '') : '-',
    duration(s, nowMs),
    params === '' ? '-' : params.length > 40 ? `${params.slice(0, 37)}...` : params,
  ];
}

function duration(s: RunStatus, nowMs: number): string {
  if (!s.started_at) return '-';
  const end = s.finished_at ? Date.parse(s.finished_at) : nowMs;
  return formatElapsed(end - Date.parse(s.started_at));
}

/** One run in the shape of Dagu's `history --format json`, plus the attempt number. */
function jsonEntry(s: RunStatus, nowMs: number) {
  return {
    name: s.dag_name,
    dagRunId: s.run_id,
    status: s.status,
    ...(s.started_at ? { startedAt: s.started_at } : {}),
    ...(s.finished_at ? { finishedAt: s.finished_at } : {}),
    ...(s.started_at ? { duration: duration(s, nowMs) } : {}),
    ...(s.params.length > 0 ? { params: s.params.join(' ') } : {}),
    ...(s.labels && s.labels.length > 0 ? { labels: s.labels } : {}),
    ...(s.worker_id ? { workerId: s.worker_id } : {}),
    ...(s.error ? { error: s.error } : {}),
    attempt: s.attempt,
  };
}
