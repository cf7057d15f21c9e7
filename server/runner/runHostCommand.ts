// What a run host (server/cli/runHost.ts) and the scheduler's launcher that starts it agree on. Kept apart
// from both so that the CLI's entry point, which checks for the host's command word, loads nothing else.

/** The hidden command a run host runs as: `dagu __run-host`, its runs given on stdin as one JSON line. */
export const RUN_HOST_COMMAND = '__run-host';

/** One run a host executes: what `dagu start --quiet --run-id …` of a process of its own would be given. */
export interface HostedRun {
  /** The DAG file or name (the `<dag>` operand of `dagu start`). */
  dag: string;
  runId: string;
  triggerType: string;
  scheduleTime: string | null;
  /** `--name`: the run is under another name than its DAG file's. */
  name: string | null;
  /** The run's process log: its log lines and errors, as a run process of its own would write them. */
  processLog: string;
}

export interface HostAssignment {
  runs: HostedRun[];
}

/** Whether `r` is a HostedRun as a host is given one. */
export function isHostedRun(r: unknown): r is HostedRun {
  if (typeof r !== 'object' || r === null) return false;
  const run = r as Partial<Record<keyof HostedRun, unknown>>;
  const str = (v: unknown) => typeof v === 'string' && v !== '';
  return (
    str(run.dag) &&
    str(run.runId) &&
    str(run.triggerType) &&
    str(run.processLog) &&
    (run.scheduleTime === null || str(run.scheduleTime)) &&
    (run.name === null || str(run.name))
  );
}

/** Parses the host's assignment; throws on anything that is not one (the host then runs nothing). */
export function parseHostAssignment(line: string): HostAssignment {
  const a = JSON.parse(line) as { runs?: unknown };
  const ok = Array.isArray(a.runs) && a.runs.length > 0 && a.runs.every(isHostedRun);
  if (!ok) throw new Error('malformed run host assignment');
  return a as HostAssignment;
}
