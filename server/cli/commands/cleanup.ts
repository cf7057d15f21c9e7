// `dagu cleanup [--retention-days N] [--dry-run] [-y] <dag>`: removes a DAG's old runs (their records, logs and
// work directories), all of them by default or those older than N days. A queued or running run is never
// removed. Without -y it asks first, on stdin, as Dagu does; with no answer (stdin closed) nothing is removed.

import { createInterface } from 'node:readline';
import { assertDagName } from '../../core/names';
import { DAY } from '../../core/units';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { loadDagOrThrow } from '../loadDagOrThrow';
import { isDagPath } from './target';
import { cliControlPlane } from '../openControlPlane';

interface CleanupOptions extends GlobalOptions {
  retentionDays?: string;
  dryRun?: boolean;
  yes?: boolean;
}

export async function cleanupCommand(dagArg: string, opts: CleanupOptions): Promise<number> {
  const days = opts.retentionDays ?? '0';
  if (!/^\d+$/.test(days))
    throw new UsageError(`--retention-days ${JSON.stringify(days)}: use a whole number of days, 0 or more`);
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const cp = await cliControlPlane(config, logger);
  const dag = isDagPath(dagArg) ? (await loadDagOrThrow(config, dagArg)).name : assertDagName(dagArg);
  const store = cp.runs;
  const cutoffMs = Number(days) === 0 ? Infinity : Date.now() - Number(days) * DAY;
  const old = (await store.history(dag)).filter((e) => e.created_ms < cutoffMs);
  const victims: string[] = [];
  let live = 0;
  for (const entry of old) {
    const r = await store.readStatus(entry.run_id);
    if (r.kind === 'ok' && (r.status.status === 'queued' || r.status.status === 'running')) live++;
    else victims.push(entry.run_id);
  }
  const kept = live > 0 ? ` (${live} queued or running run${live === 1 ? '' : 's'} kept)` : '';
  const scope = Number(days) === 0 ? '' : ` older than ${days} days`;
  if (victims.length === 0) {
    process.stdout.write(`No runs of ${dag}${scope} to remove${kept}\n`);
    return EXIT_OK;
  }
  if (opts.dryRun) {
    process.stdout.write(
      `Would remove ${victims.length} run(s) of ${dag}${scope}${kept}:\n${victims.map((id) => `  ${id}`).join('\n')}\n`,
    );
    return EXIT_OK;
  }
  if (!opts.yes && !opts.quiet) {
    process.stdout.write(
      `This removes ${victims.length} run(s) of ${dag}${scope}, with their logs${kept}.\nContinue? [y/N]: `,
    );
    const answer = await readLine();
    if (!/^y(es)?$/i.test(answer.trim())) {
      process.stdout.write('\nCancelled; nothing removed.\n');
      return EXIT_OK;
    }
  }
  let removed = 0;
  let failed = 0;
  for (const runId of victims) {
    const r = await store.deleteRun(runId).catch((err: Error) => {
      process.stderr.write(`dagu: could not remove run ${runId}: ${err.message}\n`);
      return null;
    });
    if (r?.deleted) removed++;
    else if (r === null) failed++;
    else if (r.reason === 'unreadable') {
      failed++;
      process.stderr.write(`dagu: run ${runId} was not removed: its record cannot be read\n`);
    }
    // `missing`: removed meanwhile (by the scheduler's retention); `live`: it started meanwhile, so it stays.
  }
  process.stdout.write(`Removed ${removed} run(s) of ${dag}${kept}\n`);
  return failed > 0 ? EXIT_RUN_FAILED : EXIT_OK;
}

/** One line of stdin, or '' when stdin ends first. */
function readLine(): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    let done = false;
    rl.once('line', (line) => {
      done = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!done) resolve('');
    });
  });
}
