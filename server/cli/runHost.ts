// A run host: one detached process that executes several runs at once, each as `dagu start --quiet --run-id`
// would in a process of its own. The scheduler starts one for a burst of runs (a busy slot), so that 200 runs
// due together pay for a few Node start-ups rather than 200 (server/scheduler/launcher.ts).
//
// What holds per run, as in a run process of its own:
// - its status, heartbeat and active marker are its own (the run engine writes them per run), and they name
//   this process's pid: if the host dies, the dead-run check finds every one of its runs gone and marks it
//   failed;
// - its log lines and errors go to its own process log; the host's own output (a crash trace, and what the
//   stores log: the runs share the host's control plane, and on a database its few connections) goes to the
//   file given on the command line, which each run's process log names in its first line, and which is
//   removed at the end when nothing was written to it;
// - it is stopped on its own: a signal to the host would reach every run in it, so `dagu stop` and the API
//   leave a stop request file instead (store/runHostFiles.ts), which the host looks for a few times a second;
// - nothing process-wide is changed for one run: no signal handler, working directory, environment variable or
//   exit code (each run's steps get the environment and directory the run's own settings give them).
// SIGTERM or SIGINT to the host stops every run in it, as the same signal to each of their processes would.
// A host runs the build it was started from, and it is started for its runs only, never given more later:
// it cannot run an older build after an upgrade.

import { open, writeSync } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { parseHostAssignment, type HostedRun } from '../runner/runHostCommand';
import {
  registerHostedRun,
  sweepDeadHosts,
  takeStopRequests,
  unregisterHostedRun,
} from '../store/runHostFiles';
import { isLocalProcessAlive } from '../scheduler/zombieReaper';
import type { TriggerType } from '../core/types';
import { cliContext } from './context';
import { openRunHostControlPlane } from './openControlPlane';

/** How often the host looks for stop requests of its runs (one directory listing each time). */
export const STOP_POLL_MS = 250;

/** Runs the assignment read from stdin; `hostLog` is where this process's own output goes. */
export async function runHost(hostLog: string | undefined): Promise<void> {
  if (!hostLog) throw new Error("usage: dagu __run-host <file for the host's own output>");
  const assignment = parseHostAssignment(await readLine());
  // The data directory of the stop channel; every run loads the configuration again, as its own process would.
  const { config, logger } = cliContext({ quiet: true }, { component: 'run-host' });
  const dataDir = config.paths.data_dir;
  // One control plane for all the runs: on a database, a few connections for the host, not one per run.
  await openRunHostControlPlane(config, logger);
  // Records left by hosts that died (they could not remove their own); best effort, never holds the runs up.
  void sweepDeadHosts(dataDir, isLocalProcessAlive).catch(() => undefined);
  const live = new Map<string, AbortController>();
  // One per run, made before any signal can come: a signal to the host stops every run, started or not yet.
  const controllers = assignment.runs.map(() => new AbortController());
  const onSignal = (sig: NodeJS.Signals) => {
    for (const c of controllers) c.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const stopPolling = pollStopRequests(dataDir, live);
  const total = assignment.runs.length;
  try {
    await Promise.all(
      assignment.runs.map((run, i) =>
        hostOne(run, {
          dataDir,
          intro: `dagu: run host ${process.pid} runs this run with ${total - 1} others; its own output: ${hostLog}`,
          controller: controllers[i],
          live,
        }),
      ),
    );
  } finally {
    stopPolling();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Nothing went wrong outside the runs: the host's own output file is empty, and is not kept.
  if ((await stat(hostLog).catch(() => null))?.size === 0) await unlink(hostLog).catch(() => undefined);
}

/**
 * Looks for stop requests of the `live` runs every STOP_POLL_MS and aborts each run asked to stop; returns
 * the function that stops looking.
 */
export function pollStopRequests(dataDir: string, live: Map<string, AbortController>): () => void {
  let polling = false;
  const poll = setInterval(() => {
    if (polling || live.size === 0) return;
    polling = true;
    takeStopRequests(dataDir, new Set(live.keys()))
      .then((asked) => {
        for (const { runId, signal } of asked) live.get(runId)?.abort(signal);
      })
      .catch((err: Error) =>
        process.stderr.write(`dagu: run host: cannot read stop requests: ${err.message}\n`),
      )
      .finally(() => (polling = false));
  }, STOP_POLL_MS);
  return () => clearInterval(poll);
}

/**
 * Runs one hosted run as `dagu start --quiet --run-id` would in a process of its own: its process log opened
 * (and kept open until the process exits), `intro` written there first, the run registered for stops by
 * request file, and `controller` its stop.
 */
export async function hostOne(
  run: HostedRun,
  h: {
    dataDir: string;
    intro: string;
    controller: AbortController;
    live: Map<string, AbortController>;
  },
): Promise<void> {
  // The descriptor stays open until the host exits: a log line written late (a timer of the run) must never
  // land in a file that reused the number.
  // (A plain descriptor, not a FileHandle, which would be closed when it is garbage collected.)
  const fd = await new Promise<number>((resolve) =>
    open(run.processLog, 'a', (err, opened) => {
      if (!err) return resolve(opened);
      process.stderr.write(`dagu: run ${run.runId}: cannot open its process log: ${err.message}\n`);
      resolve(2); // the host's own output
    }),
  );
  const write = (text: string) => {
    try {
      writeSync(fd, text);
    } catch {
      /* a full disk: the line is lost, as a run process of its own would lose it */
    }
  };
  write(`${h.intro}\n`);
  try {
    // Registered first: a stop of the run must never fall back to a signal, which would stop the whole host.
    await registerHostedRun(h.dataDir, run.runId, process.pid);
  } catch (err) {
    write(`dagu: the run was not started: cannot record its run host: ${(err as Error).message}\n`);
    return;
  }
  h.live.set(run.runId, h.controller);
  try {
    const { startCommand } = await import('./commands/start');
    await startCommand(run.dag, [], {
      quiet: true,
      runId: run.runId,
      triggerType: run.triggerType as TriggerType,
      scheduleTime: run.scheduleTime ?? undefined,
      name: run.name ?? undefined,
      hosted: { signal: h.controller.signal, logStream: fdStream(fd, write) },
    });
  } catch (err) {
    write(`dagu: ${(err as Error).message}\n`);
  } finally {
    h.live.delete(run.runId);
    await unregisterHostedRun(h.dataDir, run.runId).catch((err: Error) =>
      write(`dagu: cannot remove the run's run host record: ${err.message}\n`),
    );
  }
}

/** A stream writing to `fd` (the run's process log), for its logger. */
function fdStream(fd: number, write: (text: string) => void): Writable & { fd: number; isTTY: false } {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { fd, isTTY: false as const });
}

async function readLine(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0].trim();
}
