import { describe, expect, it } from 'vitest';
import { RUN_ID_PATTERN } from '../core/names';
import { subRunId } from './subDag';

describe('subRunId', () => {
  it('is the same for the same parent run, step and attempt', () => {
    expect(subRunId('20260101T000000Z-ab12', 'load', 1)).toBe(subRunId('20260101T000000Z-ab12', 'load', 1));
  });

  it('differs between steps, parents and attempts', () => {
    const ids = new Set([
      subRunId('run-a', 'load', 1),
      subRunId('run-a', 'store', 1),
      subRunId('run-b', 'load', 1),
      subRunId('run-a', 'load', 2),
    ]);
    expect(ids.size).toBe(4);
  });

  it('starts with the parent run ID so the family shows in run lists', () => {
    expect(subRunId('nightly-etl-1', 'load')).toMatch(/^nightly-etl-1-[0-9a-f]{12}$/);
  });

  it('always fits the run ID pattern, even for a 64-character parent and an odd step name', () => {
    const longParent = 'x'.repeat(64);
    for (const id of [
      subRunId(longParent, 'step with spaces / and ünïcode', 7),
      subRunId('a', ''),
      subRunId(longParent, 'y'.repeat(500), 1000),
    ]) {
      expect(id).toMatch(RUN_ID_PATTERN);
      expect(id.length).toBeLessThanOrEqual(64);
    }
  });
});
