// The runs this scheduler is starting, or started a moment ago. A launch prepares its process log on the data
// volume first, which can take seconds on a slow or stalled disk, and the process then needs a moment to take
// the run over: until it has, the run is still `queued` with no queue item, and the zombie reaper must not
// mistake it for one nobody started.

import type { Clock } from '../core/ports';

export class RecentLaunches {
  /** Run ID -> monotonic time the launch ended, or null while it is in flight. */
  private readonly launches = new Map<string, number | null>();

  /** `graceMs`: how long after its launch a run counts as just started (the run heartbeat's stale threshold). */
  constructor(
    private readonly clock: Clock,
    private readonly graceMs: number,
  ) {}

  begin(runId: string): void {
    this.prune();
    this.launches.set(runId, null);
  }

  end(runId: string): void {
    this.launches.set(runId, this.clock.monoMs());
  }

  /** Whether the run's launch is in flight or ended less than the grace ago. */
  has(runId: string): boolean {
    const endedAt = this.launches.get(runId);
    if (endedAt === undefined) return false;
    return endedAt === null || this.clock.monoMs() - endedAt <= this.graceMs;
  }

  /** How many launches are remembered (in flight or within their grace, plus expired ones not yet pruned). */
  get size(): number {
    return this.launches.size;
  }

  private prune(): void {
    const now = this.clock.monoMs();
    for (const [id, endedAt] of this.launches)
      if (endedAt !== null && now - endedAt > this.graceMs) this.launches.delete(id);
  }
}
