// In-memory EventLog with the behaviour of FileEventLog (same IDs, order, filters and size limit), for tests.

import type { Clock } from '../core/ports';
import { InvalidCursorError } from './errors';
import {
  EVENT_ID_PATTERN,
  EventIdGenerator,
  clampEventLimit,
  compareEventIds,
  eventMatches,
  makeEventRecord,
} from './eventRecord';
import type { EventLog, EventRecord } from './types';

/** EventLog kept in memory; `clock` stamps the event IDs. */
export class MemoryEventLog implements EventLog {
  private readonly records: EventRecord[] = [];
  private readonly ids: EventIdGenerator;

  constructor(opts: { clock: Clock }) {
    this.ids = new EventIdGenerator(opts.clock);
  }

  async append(type: string, data: Record<string, unknown>): Promise<EventRecord> {
    const { record } = makeEventRecord(this.ids, type, data);
    this.records.push(record);
    return structuredClone(record);
  }

  async list(query: { afterId?: string; types?: string[]; limit?: number }): Promise<EventRecord[]> {
    if (query.afterId !== undefined && !EVENT_ID_PATTERN.test(query.afterId)) {
      throw new InvalidCursorError(query.afterId, 'event ID');
    }
    return this.records
      .filter((record) => eventMatches(record, query))
      .sort(compareEventIds)
      .slice(0, clampEventLimit(query.limit))
      .map((record) => structuredClone(record));
  }
}
