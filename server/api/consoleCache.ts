// What the console's live views keep between requests in one server process: the failover history and the
// records of waiting runs, both brought up to date from the event feed before each use.

import { silentLogger, type Logger } from '../core/ports';
import type { EventFeed } from './eventFeed';
import { FailoverHistory, LOCK_EVENT_PREFIX } from './failoverHistory';
import { RunRecordCache } from './runRecordCache';

const RUN_EVENT_PREFIX = 'dag.run.';

export class ConsoleCache {
  readonly failovers = new FailoverHistory();
  readonly runs = new RunRecordCache();
  private started = false;
  private syncing: Promise<void> | null = null;
  private lastError: string | null = null;

  constructor(
    private readonly feed: EventFeed,
    private readonly logger: Logger = silentLogger,
  ) {}

  /**
   * Reads what the event log gained since the last call (requests arriving meanwhile share one read). Never
   * fails: an unreadable log leaves the history as it was (logged once per distinct error), so the overview
   * and the queue still answer with what the other stores say.
   */
  sync(): Promise<void> {
    this.syncing ??= this.pull()
      .then(() => {
        this.lastError = null;
      })
      .catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        if (message !== this.lastError) this.logger.warn('Could not read the event log', { error: message });
        this.lastError = message;
      })
      .finally(() => {
        this.syncing = null;
      });
    return this.syncing;
  }

  private async pull(): Promise<void> {
    // The first read covers the whole log: only role events matter then (nothing is cached yet), so the
    // history's run events are skipped unparsed.
    const withRuns = this.started;
    const events = await this.feed.read(
      (type) => type.startsWith(LOCK_EVENT_PREFIX) || (withRuns && type.startsWith(RUN_EVENT_PREFIX)),
    );
    this.started = true;
    for (const e of events) {
      if (e.type.startsWith(RUN_EVENT_PREFIX)) {
        if (typeof e.data.run_id === 'string') this.runs.invalidate(e.data.run_id);
      } else {
        this.failovers.add(e);
      }
    }
  }
}
