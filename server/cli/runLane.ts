// A run lane: one detached process that takes queued runs one after another from the scheduler that
// started it, over the local socket it was given (server/runner/runLanes.ts has the scheduler's side and the
// rules that keep it as safe as a process per run). Each run is run as a run host runs it (cli/runHost.ts):
// its own status, heartbeat, process log and stop by request file, the lane's pid recorded.
//
// The lane says its token and its build first, then takes each `{"run": …}` line as it comes, answering
// `{"done": "<run id>"}` when that run has ended. When the connection ends (the scheduler let it go, or went
// away) it takes no more runs, finishes those it has, and exits. SIGTERM or SIGINT stops every run in it, as
// the same signal to each of their processes would, and it takes no more.

import { connect } from 'node:net';
import { stat, unlink } from 'node:fs/promises';
import { isLocalProcessAlive } from '../runner/localProcess';
import type { HostedRun } from '../runner/runHostCommand';
import { parseLaneRun, type LaneHello } from '../runner/runLaneCommand';
import { sweepDeadHosts } from '../store/runHostFiles';
import { BUILD_ID } from './buildId';
import { cliContext } from './context';
import { hostOne, pollStopRequests } from './runHost';
import { openRunHostControlPlane, syncRunHostDags } from './openControlPlane';

export async function runLane(ownLog?: string, socketPath?: string, token?: string): Promise<void> {
  if (!ownLog || !socketPath || !token) {
    throw new Error('usage: dagu __run-lane <file for its own output> <socket> <token>');
  }
  const { config, logger } = cliContext({ quiet: true }, { component: 'run-lane' });
  const dataDir = config.paths.data_dir;
  // One control plane for all its runs: on a database, a few connections for the lane, not one per run.
  await openRunHostControlPlane(config, logger);
  void sweepDeadHosts(dataDir, isLocalProcessAlive).catch(() => undefined);
  const live = new Map<string, AbortController>();
  const controllers = new Set<AbortController>();
  const running = new Set<Promise<void>>();
  let accepting = true;
  let taken = 0;
  const socket = connect(socketPath, () => {
    const hello: LaneHello = { token, build: BUILD_ID };
    socket.write(`${JSON.stringify(hello)}\n`);
  });
  const onSignal = (sig: NodeJS.Signals) => {
    accepting = false;
    socket.end();
    for (const c of controllers) c.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const stopPolling = pollStopRequests(dataDir, live);

  const take = (run: HostedRun) => {
    taken++;
    const controller = new AbortController();
    controllers.add(controller);
    const intro = `dagu: run lane ${process.pid} runs this run (its run ${taken}); its own output: ${ownLog}`;
    const done = (async () => {
      // The DAG may have changed since the lane's last run: on a database its copy is brought in step.
      await syncRunHostDags(config, logger).catch(() => undefined);
      await hostOne(run, { dataDir, intro, controller, live });
    })().finally(() => {
      controllers.delete(controller);
      running.delete(done);
      if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify({ done: run.runId })}\n`);
    });
    running.add(done);
  };

  try {
    await new Promise<void>((resolve) => {
      socket.setEncoding('utf8');
      let text = '';
      socket.on('data', (d: string) => {
        text += d;
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
          const line = text.slice(0, nl);
          text = text.slice(nl + 1);
          const run = parseLaneRun(line);
          if (run === null) {
            process.stderr.write(`dagu: run lane: not a run: ${JSON.stringify(line.slice(0, 200))}\n`);
          } else if (accepting) {
            take(run);
          }
          // A run that comes after a stop is left queued: the scheduler offers it again.
        }
      });
      // Refused (no scheduler), reset or ended: no more runs.
      socket.on('error', () => undefined);
      socket.on('close', () => {
        accepting = false;
        resolve();
      });
    });
    while (running.size > 0) await Promise.all([...running]);
  } finally {
    stopPolling();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Nothing went wrong outside the runs: the lane's own output file is empty, and is not kept.
  if ((await stat(ownLog).catch(() => null))?.size === 0) await unlink(ownLog).catch(() => undefined);
}
