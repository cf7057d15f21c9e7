// A CronLoop on the fake clock with in-memory stores and a fake launcher, for the loop's unit tests: each
// file adds what its feature needs (a launch script, suspend flags set, DAGs changed between ticks).

import type { DagSpec, RunStatus } from '../../core/types';
import { MemoryQueueStore } from '../../store/memoryQueueStore';
import { MemorySuspendFlags } from '../../store/memorySuspendFlags';
import { FakeTime } from '../../testing/fakeTime';
import { RecordingLogger } from '../../testing/recordingLogger';
import { CronLoop } from '../cronLoop';
import { emptyState, type SchedulerState } from '../schedulerState';
import { FakeLauncher } from './fakeLauncher';
import { FaultyRunStore } from './faultyRunStore';
import { MemoryStateStore } from './memoryStateStore';

export const CRON_DATA_DIR = '/srv/dagu/data';

export function cronWorld(o: { nowMs: number; dags: DagSpec[]; state?: Partial<SchedulerState> }) {
  const time = new FakeTime(o.nowMs);
  const runs = new FaultyRunStore();
  const queue = new MemoryQueueStore();
  const logger = new RecordingLogger();
  const stateFile = new MemoryStateStore({ ...emptyState(), ...o.state });
  const launcher = new FakeLauncher(runs, time, time);
  const suspended = new MemorySuspendFlags();
  const w = {
    time,
    runs,
    queue,
    logger,
    stateFile,
    launcher,
    suspended,
    /** What the catalog loads at each tick; a test may replace it. */
    dags: o.dags,
    loop(instanceId = 'sched-b') {
      return new CronLoop({
        slotNamespace: CRON_DATA_DIR,
        instanceId,
        clock: time,
        timers: time,
        logger,
        runs,
        queue,
        catalog: { load: async () => w.dags },
        suspended,
        stateFile,
        launch: launcher.launch,
        queuesEnabled: true,
        canDispatch: () => true,
      });
    },
    async status(runId: string): Promise<RunStatus> {
      const r = await runs.readStatus(runId);
      if (r.kind !== 'ok') throw new Error(`run ${runId} is ${r.kind}`);
      return r.status;
    },
    async allRunIds(): Promise<string[]> {
      return (await runs.listRuns({ limit: 500 })).items.map((r) => r.run_id).sort();
    },
  };
  return w;
}
