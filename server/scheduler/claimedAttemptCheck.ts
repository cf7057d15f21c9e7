// Judges a queued run whose attempt a process claimed but which never said it started. Its process may have
// run its steps while the store was unreachable (a database restart): it could then write neither `running`
// nor its end, and it keeps retrying its end for its final-status budget. Such a run is failed only once
// this instance has watched it stay silent for longer than a live process could, and the reason says what
// is known (who claimed it, when it was last heard from), never that it did not start.

import { parseClaimOwner, type ClaimOwner } from '../core/claimOwner';
import { formatDuration } from '../core/duration';
import type { Clock } from '../core/ports';
import { isoUtc } from '../core/runStatus';
import type { RunStatus } from '../core/types';
import type { RunStore } from '../store/types';
import { describeErrorCode } from './describeErrorCode';

/** Claimed attempts watched at once; far more than can be waiting between two sweeps. */
const MAX_WATCHED = 10_000;

export interface ClaimedAttemptCheckDeps {
  clock: Clock;
  runs: Pick<RunStore, 'readHeartbeat' | 'readUnwrittenFinalStatus'>;
  /** run.heartbeat_stale_threshold: a live run process heartbeats well within it. */
  heartbeatStaleMs: number;
  /**
   * How long a run process may spend reporting its end (runner finalStatusBudgetMs): shipping its logs, then
   * retrying its final status. Its heartbeats between those tries are all that shows it is alive meanwhile.
   */
  finalStatusBudgetMs: number;
  host: string;
  processAlive: (pid: number) => boolean;
  /**
   * Whether run processes record their start under their claim before they run anything (RunStore
   * releasesClaims): a claimed attempt still queued then ran none of its steps.
   */
  startRecordedFirst: boolean;
}

interface Watch {
  /** When (monotonic, this instance's clock) the attempt was first seen with this heartbeat. */
  sinceMono: number;
  heartbeatMs: number | null;
}

export class ClaimedAttemptCheck {
  private readonly watched = new Map<string, Watch>();

  constructor(private readonly d: ClaimedAttemptCheckDeps) {}

  /** How long a claimed attempt must stay silent, on this instance's clock, before it is judged. */
  get silenceMs(): number {
    return this.d.heartbeatStaleMs + this.d.finalStatusBudgetMs;
  }

  /**
   * Why the queued run `s`, whose attempt `claim` names a claimant, is to be failed; null while its process
   * may still report. Silence is timed from this instance's first look, not from the claim: after an outage
   * of the store every process's last heartbeat is old, and a live one needs a moment to be heard again.
   * A claimant on this host whose process is gone is judged at once: nothing more can come from it.
   */
  async reason(s: RunStatus, claim: string): Promise<string | null> {
    const key = `${s.run_id}#${s.attempt}`;
    const owner = parseClaimOwner(claim);
    const heartbeatMs = await this.d.runs.readHeartbeat(s.run_id, s.attempt);
    if (heartbeatMs !== null && this.d.clock.nowMs() - heartbeatMs <= this.d.heartbeatStaleMs) {
      this.watched.delete(key);
      return null;
    }
    const gone = owner.host === this.d.host && owner.pid !== null && !this.d.processAlive(owner.pid);
    const now = this.d.clock.monoMs();
    let w = this.watched.get(key);
    if (w === undefined || w.heartbeatMs !== heartbeatMs) {
      w = { sinceMono: now, heartbeatMs };
      this.watched.set(key, w);
      if (this.watched.size > MAX_WATCHED) this.watched.delete(this.watched.keys().next().value!);
    }
    const silentMs = now - w.sinceMono;
    if (!gone && silentMs <= this.silenceMs) return null;
    return this.verdict(s, owner, heartbeatMs, gone ? null : silentMs);
  }

  /** Forgets the attempts of runs no longer active. */
  prune(activeRunIds: ReadonlySet<string>): void {
    for (const key of this.watched.keys())
      if (!activeRunIds.has(key.slice(0, key.lastIndexOf('#')))) this.watched.delete(key);
  }

  /** `silentMs`: how long it was watched silent; null when its process is known to be gone. */
  private async verdict(
    s: RunStatus,
    owner: ClaimOwner,
    heartbeatMs: number | null,
    silentMs: number | null,
  ): Promise<string> {
    const who =
      owner.host !== null ? `run process ${owner.pid} on ${owner.host}` : `run process ${owner.text}`;
    const claimed = `${who} claimed attempt ${s.attempt}${owner.claimedAtMs === null ? '' : ` at ${isoUtc(owner.claimedAtMs)}`}`;
    const note = await this.d.runs.readUnwrittenFinalStatus(s.run_id, s.attempt);
    if (note !== null) {
      return `${claimed} and ended ${note.state}, but could not write its status (${describeErrorCode(note.error_code)}); marked failed`;
    }
    const heard = [owner.claimedAtMs, heartbeatMs].filter((ms): ms is number => ms !== null);
    const lastHeard = heard.length > 0 ? isoUtc(Math.max(...heard)) : null;
    if (this.d.startRecordedFirst) {
      const how =
        silentMs === null
          ? `exited without beginning it${lastHeard === null ? '' : ` (last heard from at ${lastHeard})`}`
          : `never began it (not heard from${lastHeard === null ? '' : ` since ${lastHeard}`}; nothing from it in ${formatDuration(Math.round(silentMs / 1000) * 1000)} of watching)`;
      return `${claimed} and ${how}, so none of its steps ran; marked failed`;
    }
    const what =
      silentMs === null
        ? `exited without writing its status${lastHeard === null ? '' : ` (last heard from at ${lastHeard})`}`
        : `was not heard from${lastHeard === null ? '' : ` since ${lastHeard}`} (no status or heartbeat from it in ${formatDuration(Math.round(silentMs / 1000) * 1000)} of watching)`;
    return `${claimed} and ${what}; whether its steps ran is unknown; marked failed`;
  }
}
