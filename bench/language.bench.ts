// Issue-14 figures for the Dagu DAG language: `dagu validate` of a 200-step DAG, and a `parallel` step over
// 1,000 items run by the scheduler, with the memory of the scheduler and of the parent run process.
// Run: npm run bench -- language   (or: node --import tsx bench/language.bench.ts)

import { spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseDag } from '../server/core/dag/parseDag';
import { TERMINAL_RUN_STATES, type RunStatus } from '../server/core/types';
import { FileRunStore } from '../server/store/fileRunStore';
import {
  check,
  finish,
  median,
  report,
  rssMb,
  runSync,
  sleep,
  startTracked,
  tempHome,
  treeRssMb,
} from './lib';

const live = new Set<ChildProcess>();
const homes: Array<() => void> = [];
const cleanup = () => {
  for (const c of live) c.kill('SIGKILL');
  for (const h of homes.splice(0)) h();
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));
// `timeout` and CI stop with SIGTERM: the same cleanup as after Ctrl-C.
process.on('SIGTERM', () => process.exit(143));

/** A graph DAG of n steps: a chain of fan-outs, each step depending on one or two earlier ones. */
function bigDag(n: number): string {
  const lines = ['description: a 200-step DAG for the validate benchmark', 'steps:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  - name: step_${i}`);
    lines.push(`    run: echo "step ${i} of \${DAG_NAME}" && test -n "$HOME"`);
    if (i > 0) lines.push(`    depends: [step_${Math.floor(i / 2)}${i > 2 ? `, step_${i - 1}` : ''}]`);
    if (i % 10 === 0) lines.push('    retry_policy: { limit: 2, interval_sec: 1 }');
    if (i % 7 === 0)
      lines.push('    preconditions: [{ condition: "${params.MODE}", expected: "re:^(full|fast)$" }]');
    if (i % 5 === 0) lines.push('    env: [{ STEP_INDEX: "' + i + '" }]');
  }
  lines.push('params:', '  - MODE: full');
  return lines.join('\n') + '\n';
}

/** Wall time of `dagu <args>`, median of 10. */
function medianMs(args: string[], env: NodeJS.ProcessEnv, exe: string[] = []): number {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    if (exe.length > 0) spawnSync(exe[0], exe.slice(1), { env });
    else runSync(args, env);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function validateFigures() {
  // As the foundation bench: Node reads a NODE_EXTRA_CA_CERTS bundle at every start (70 ms here), which would
  // measure this machine's set-up rather than dagu.
  const h = tempHome({ NODE_EXTRA_CA_CERTS: '' });
  delete h.env.NODE_EXTRA_CA_CERTS;
  homes.push(h.cleanup);
  h.writeDag('big', bigDag(200));
  h.writeDag('one', 'steps:\n  - run: "true"\n');
  const first = runSync(['validate', 'big'], h.env);
  if (first.status !== 0) throw new Error(`dagu validate failed: ${first.stderr}`);
  check('dagu validate, 200-step DAG, median of 10', medianMs(['validate', 'big'], h.env), 'ms', {
    max: 100,
    why: 'issue 14',
  });
  report(
    '  dagu validate, 1-step DAG, median of 10',
    medianMs(['validate', 'one'], h.env),
    'ms',
    'reference',
  );
  report(
    "  bare node -e '', median of 10",
    medianMs([], h.env, [process.execPath, '-e', '']),
    'ms',
    'reference',
  );
  const text = bigDag(200);
  const parse: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const r = parseDag(text, { file: '/dags/big.yaml', defaultName: 'big' });
    parse.push(performance.now() - t0);
    if (!r.ok) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  }
  report('  parsing alone, in process, first (cold)', parse[0], 'ms', 'reference');
  report('  parsing alone, in process, median of 20', median(parse), 'ms', 'reference');
}

const PARALLEL_DAG = `type: graph
steps:
  - name: fan
    call: item
    parallel:
      items: \${ITEMS}
      max_concurrent: 10
params:
  - ITEMS: "[]"
---
name: item
params:
  - ITEM: ""
steps:
  - name: one
    run: "true"
`;

async function parallelFigures() {
  const h = tempHome({ DAGU_LOG_LEVEL: 'warn' });
  homes.push(h.cleanup);
  h.writeDag('fanout', PARALLEL_DAG);
  const runs = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
  const items = JSON.stringify(Array.from({ length: 1000 }, (_, i) => `i${i}`));
  const scheduler = startTracked(['scheduler'], h.env, live);
  await sleep(1500);
  const t0 = performance.now();
  // Queued, so that the scheduler starts the run process, as it would a scheduled one.
  const q = runSync(['enqueue', '--run-id', 'fan1', 'fanout', '--', `ITEMS=${items}`], h.env);
  if (q.status !== 0) throw new Error(`dagu enqueue failed: ${q.stderr}`);
  let runMax = 0;
  let schedulerMax = 0;
  let treeMax = 0;
  let runSamples = 0;
  let final: RunStatus | null = null;
  const giveUpAt = performance.now() + 600_000;
  while (final === null && performance.now() < giveUpAt) {
    const read = await runs.readStatus('fan1');
    const s = read.kind === 'ok' ? read.status : null;
    if (s && TERMINAL_RUN_STATES.includes(s.status)) final = s;
    try {
      // A process that has just exited and is not reaped yet has no VmRSS (NaN): such a sample is
      // skipped, so that it cannot stand for the whole run's maximum.
      const sched = rssMb(scheduler.child.pid!);
      if (Number.isFinite(sched)) schedulerMax = Math.max(schedulerMax, sched);
      if (s?.pid && final === null) {
        const run = rssMb(s.pid);
        if (Number.isFinite(run)) {
          runMax = Math.max(runMax, run);
          runSamples++;
        }
        treeMax = Math.max(treeMax, treeRssMb(s.pid).mb);
      }
    } catch {
      /* a process ended meanwhile */
    }
    await sleep(100);
  }
  const elapsed = performance.now() - t0;
  if (final?.status !== 'succeeded') {
    process.stdout.write(`the parallel run ended ${final?.status ?? 'never'}: ${final?.error ?? ''}\n`);
  }
  check('parallel over 1,000 items: run succeeded', final?.status === 'succeeded' ? 1 : 0, '', {
    exactly: 1,
  });
  // No sample of the run process at all is a miss, not a 0 MB pass.
  check('parallel over 1,000 items: run process RSS, max', runSamples > 0 ? runMax : NaN, 'MB', {
    max: 200,
    why: 'issue 14',
  });
  report('  samples of the run process', runSamples, '', 'reference');
  check('parallel over 1,000 items: scheduler RSS, max', schedulerMax, 'MB', { max: 200, why: 'issue 14' });
  report('  run process with its live children, max', treeMax, 'MB', 'reference');
  report('  time to finish 1,000 child runs', elapsed / 1000, 's', 'reference');
  scheduler.child.kill('SIGTERM');
  await scheduler.exited;
}

await validateFigures();
await parallelFigures();
cleanup();
finish();
