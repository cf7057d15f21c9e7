// `dagu ls [pattern]`: the DAGs of the DAGs directory with their schedule, next run, last run and tags, sorted
// by name (`-t`: by last run, newest first; `-r` reverses). Dagu's `-n` and `-l` add the next-run and last-run
// columns; here those are always shown, and the flags are accepted. `-H` adds the five latest statuses. A file
// with errors is listed with "invalid" and its first error on stderr. A suspended DAG has no next run (Dagu
// shows "-"); here its NEXT_RUN says "suspended", so it shows plainly.

import { listDags, type DagSummary } from '../../api/dags';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';
import { formatTable } from './table';
import { cliServices } from '../openControlPlane';

interface LsOptions extends GlobalOptions {
  next?: boolean;
  last?: boolean;
  history?: boolean;
  sortLast?: boolean;
  reverse?: boolean;
  json?: boolean;
}

export async function lsCommand(pattern: string | undefined, opts: LsOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const svc = await cliServices(config, logger);
  let dags = (await listDags(svc)).dags;
  if (pattern !== undefined) {
    const p = pattern.toLowerCase();
    dags = dags.filter((d) => d.name.toLowerCase().includes(p) || d.file.toLowerCase().includes(p));
  }
  if (opts.sortLast) dags = [...dags].sort(byLastRun);
  if (opts.reverse) dags = [...dags].reverse();
  const recent = new Map<string, string>();
  if (opts.history) {
    for (const d of dags) {
      const runs = d.errors.length > 0 ? [] : (await svc.runs.listRuns({ dag: d.name, limit: 5 })).items;
      recent.set(d.name, runs.length > 0 ? runs.map((r) => r.status).join(',') : '-');
    }
  }
  for (const d of dags)
    if (d.errors.length > 0) process.stderr.write(`dagu: warning: ${d.file}: ${d.errors[0]}\n`);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(dags, null, 2)}\n`);
    return EXIT_OK;
  }
  if (dags.length === 0) {
    process.stdout.write('No DAGs found\n');
    return EXIT_OK;
  }
  const headers = ['NAME', 'SCHEDULE', 'NEXT_RUN', 'LAST_STATUS', 'LAST_STARTED', 'TAGS'];
  if (opts.history) headers.push('HISTORY');
  const rows = dags.map((d) => {
    const row = [
      d.name,
      d.errors.length > 0 ? 'invalid' : d.schedule.length > 0 ? d.schedule.join(', ') : '-',
      d.suspended ? 'suspended' : (d.next_run ?? '-'),
      d.last_run?.status ?? '-',
      d.last_run?.started_at ?? '-',
      d.tags.length > 0 ? d.tags.join(',') : '-',
    ];
    if (opts.history) row.push(recent.get(d.name) ?? '-');
    return row;
  });
  process.stdout.write(`${formatTable(headers, rows).join('\n')}\n`);
  return EXIT_OK;
}

/** Newest last run first; DAGs that never ran last, by name. */
function byLastRun(a: DagSummary, b: DagSummary): number {
  const ta = a.last_run?.created_at ?? '';
  const tb = b.last_run?.created_at ?? '';
  if (ta !== tb) return ta === '' ? 1 : tb === '' ? -1 : ta < tb ? 1 : -1;
  return a.name.localeCompare(b.name);
}
