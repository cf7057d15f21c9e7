import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoUtc } from '../core/runStatus';
import { DAY, SECOND } from '../core/units';
import {
  coordinatorHarness,
  RETENTION_MS,
  STALE_MS,
  START,
  STORE_KITS,
  type CoordinatorHarness,
  type StoreKit,
} from './testing/coordinatorHarness';

const ids = async (h: CoordinatorHarness) => (await h.workers.list()).map((w) => w.worker_id);

describe.each(STORE_KITS)('Worker records on $name', ({ make }) => {
  let kit: StoreKit;
  let h: CoordinatorHarness;

  beforeEach(async () => {
    kit = await make();
    h = await coordinatorHarness(kit);
  });
  afterEach(async () => {
    await h.detector.stop();
    await kit.dispose();
  });

  describe('the retention pass', () => {
    it('removes the record of a worker silent for longer than coordinator.worker_retention, and logs it', async () => {
      await h.heartbeat('retired');
      await h.time.advance(RETENTION_MS);
      await h.heartbeat('alive');
      expect((await h.detector.sweep()).workersRemoved).toEqual([]);

      await h.time.advance(1);
      await h.heartbeat('alive');
      const swept = await h.detector.sweep();

      expect(swept.workersRemoved).toEqual(['retired']);
      expect(await ids(h)).toEqual(['alive']);
      expect(
        h.logger.find('Removed the record of a worker silent for longer than coordinator.worker_retention'),
      ).toEqual([
        expect.objectContaining({
          level: 'info',
          fields: { worker_id: 'retired', last_heartbeat: isoUtc(START) },
        }),
      ]);
    });

    it('keeps a worker whose run is still its own until the detection settles the run', async () => {
      h = await coordinatorHarness(kit, { retentionMs: 5 * SECOND });
      await h.heartbeat('worker-b', { zone: 'b' });
      await h.dispatch('run-1', { zone: 'b' });
      await h.take('worker-b', { zone: 'b' });
      await h.reportRunning('worker-b', 'run-1');

      await h.time.advance(STALE_MS);
      expect((await h.detector.sweep()).workersRemoved).toEqual([]);
      expect(await ids(h)).toEqual(['worker-b']);

      await h.time.advance(1 * SECOND);
      const swept = await h.detector.sweep();
      expect(swept.workerRunsFailed).toEqual(['run-1']);
      expect(swept.workersRemoved).toEqual(['worker-b']);
      expect((await h.status('run-1')).error).toBe(
        'worker worker-b stopped heartbeating 11s ago; marked failed',
      );
    });

    it('keeps every record for ever when the retention is 0s', async () => {
      h = await coordinatorHarness(kit, { retentionMs: 0 });
      await h.heartbeat('retired');
      await h.time.advance(365 * DAY);

      expect((await h.detector.sweep()).workersRemoved).toEqual([]);
      expect(await ids(h)).toEqual(['retired']);
    });
  });

  describe('a worker that leaves', () => {
    it('has its record removed when it owns no run, whatever runs other workers own', async () => {
      await h.heartbeat('worker-a', { zone: 'b' });
      await h.heartbeat('worker-b', { zone: 'b' });
      await h.dispatch('run-1', { zone: 'b' });
      await h.take('worker-b', { zone: 'b' });

      expect(await h.reports.leave({ worker_id: 'worker-a' })).toEqual({ removed: true, run_ids: [] });
      expect(await ids(h)).toEqual(['worker-b']);
      expect(h.logger.find('A worker left; removed its record')[0]).toMatchObject({
        level: 'info',
        fields: { worker_id: 'worker-a', host: 'worker-a-host' },
      });
    });

    it('keeps its record while a run is still its own; the detection fails the run, the retention removes it', async () => {
      await h.heartbeat('worker-b', { zone: 'b' });
      await h.dispatch('run-1', { zone: 'b' });
      await h.take('worker-b', { zone: 'b' });
      await h.reportRunning('worker-b', 'run-1');

      expect(await h.reports.leave({ worker_id: 'worker-b' })).toEqual({
        removed: false,
        run_ids: ['run-1'],
      });
      expect(await ids(h)).toEqual(['worker-b']);
      expect(
        h.logger.find('A worker left with runs still its own; its record stays until they are settled')[0]
          .fields,
      ).toEqual({ worker_id: 'worker-b', run_ids: ['run-1'] });

      await h.time.advance(STALE_MS + 1 * SECOND);
      expect((await h.detector.sweep()).workerRunsFailed).toEqual(['run-1']);
      expect(await ids(h)).toEqual(['worker-b']);
      await h.time.advance(RETENTION_MS);
      expect((await h.detector.sweep()).workersRemoved).toEqual(['worker-b']);
    });

    it('is answered removed: false when the coordinator has no record of it', async () => {
      expect(await h.reports.leave({ worker_id: 'ghost' })).toEqual({ removed: false, run_ids: [] });
      expect(h.logger.lines).toEqual([]);
    });
  });
});
