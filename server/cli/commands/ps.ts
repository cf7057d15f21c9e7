// `dagu ps`: the runs running now, on this host or on workers (`-d` one DAG, `-r` run IDs containing a text).
// Queued runs are not listed (`dagu history --status queued` shows them), as Dagu lists only live processes.

import type { RunStatus } from '../../core/types';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';
import { formatTable } from './table';
import { cliControlPlane } from '../openControlPlane';

interface PsOptions extends GlobalOptions {
  dag?: string;
  runId?: string;
  json?: boolean;
}

export async function psCommand(opts: PsOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const cp = await cliControlPlane(config, logger);
  const store = cp.runs;
  const running: RunStatus[] = [];
  for (const active of await store.listActive()) {
    if (opts.dag !== undefined && active.dag_name !== opts.dag) continue;
    if (opts.runId !== undefined && !active.run_id.includes(opts.runId)) continue;
    const r = await store.readStatus(active.run_id);
    if (r.kind === 'ok' && r.status.status === 'running') running.push(r.status);
  }
  running.sort((a, b) => ((a.started_at ?? '') < (b.started_at ?? '') ? -1 : 1));
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(running, null, 2)}\n`);
    return EXIT_OK;
  }
  if (running.length === 0) {
    if (!opts.quiet) process.stdout.write('No running processes\n');
    return EXIT_OK;
  }
  const rows = running.map((s) => [
    s.dag_name,
    s.run_id,
    String(s.attempt),
    s.started_at ?? '-',
    s.worker_id ? `worker ${s.worker_id}` : `${s.host ?? '-'} pid ${s.pid ?? '-'}`,
  ]);
  process.stdout.write(`${formatTable(['DAG', 'RUN_ID', 'ATTEMPT', 'STARTED', 'WHERE'], rows).join('\n')}\n`);
  return EXIT_OK;
}
