// The data directory being copied, read through the file stores themselves (so a record is read exactly as
// the services read it) and never written: the stores that would move an earlier version's files into
// place at first use are opened with that turned off. Every file a store skips as unreadable is collected
// under the kind of record it holds, for the report.

import path from 'node:path';
import type { Clock, LogFields, Logger } from '../../core/ports';
import { FileCancelRequests } from '../fileCancelRequests';
import { FileCoordinatorRegistry } from '../fileCoordinatorRegistry';
import { FileDispatchStore } from '../fileDispatchStore';
import { FileEventLog } from '../fileEventLog';
import { FileDagDefinitions } from '../fileDagDefinitions';
import { FileQueueStore } from '../fileQueueStore';
import { FileArtifactStore } from '../fileArtifactStore';
import { FileRunLogStore } from '../fileRunLogStore';
import { FileRunStore } from '../fileRunStore';
import { FileStateStore } from '../fileStateStore';
import { FileSuspendFlags } from '../fileSuspendFlags';
import { FileWorkerRegistry } from '../fileWorkerRegistry';
import type { CorruptFileReport } from '../fsutil';
import { isTempName, readdirOrEmpty } from '../fsutil';
import { isValidTaskId, legacyDistributedDirs } from '../distributedDir';
import { isValidRunId } from '../../core/names';
import type { Kind } from './transferReport';

/** Where the data directory's parts are (the `paths.*` settings). */
export interface FileSourcePaths {
  dataDir: string;
  logDir: string;
  suspendFlagsDir: string;
  dagsDir: string;
}

export interface FileSource {
  paths: FileSourcePaths;
  runs: FileRunStore;
  /** A second run store for the active markers, so their unreadable files are counted as active runs. */
  activeRuns: FileRunStore;
  queues: FileQueueStore;
  events: FileEventLog;
  suspendFlags: FileSuspendFlags;
  workers: FileWorkerRegistry;
  coordinators: FileCoordinatorRegistry;
  cancels: FileCancelRequests;
  tasks: FileDispatchStore;
  dags: FileDagDefinitions;
  logs: FileRunLogStore;
  artifacts: FileArtifactStore;
  state: FileStateStore;
  /**
   * Reads the scheduler's tick state (the scheduler's own reader, which lives above the stores, is handed in
   * by the command; null: not copied).
   */
  tickState: (() => Promise<unknown>) | null;
  /** Where a reader of `kind` reports a file it skipped. */
  reporter(kind: Kind): (report: CorruptFileReport) => void;
  /** Takes the unreadable files the stores of `kind` reported since the last call. */
  takeCorrupt(kind: Kind): CorruptFileReport[];
}

export function openFileSource(paths: FileSourcePaths, clock: Clock): FileSource {
  const corrupt = new Map<Kind, CorruptFileReport[]>();
  const reporter = (kind: Kind) => (report: CorruptFileReport) => {
    const list = corrupt.get(kind) ?? [];
    list.push(report);
    corrupt.set(kind, list);
  };
  const { dataDir, logDir } = paths;
  return {
    paths,
    runs: new FileRunStore({ dataDir, logDir, onCorrupt: reporter('runs') }),
    activeRuns: new FileRunStore({ dataDir, logDir, onCorrupt: reporter('active runs') }),
    queues: new FileQueueStore({ dataDir, onCorrupt: reporter('queue items') }),
    events: new FileEventLog({ dataDir, clock, onCorrupt: reporter('events') }),
    suspendFlags: new FileSuspendFlags(paths.suspendFlagsDir, reporter('suspend flags')),
    workers: new FileWorkerRegistry({ dataDir, logger: collectingLogger(reporter('workers')) }),
    coordinators: new FileCoordinatorRegistry({
      dataDir,
      logger: collectingLogger(reporter('coordinators')),
    }),
    cancels: new FileCancelRequests({ dataDir, adoptLegacy: false, onCorrupt: reporter('cancel requests') }),
    tasks: new FileDispatchStore({
      dataDir,
      adoptLegacy: false,
      logger: collectingLogger(reporter('dispatch tasks')),
    }),
    dags: new FileDagDefinitions(paths.dagsDir),
    logs: new FileRunLogStore(logDir),
    artifacts: new FileArtifactStore(dataDir),
    state: new FileStateStore(path.join(dataDir, 'state'), reporter('DAG state')),
    tickState: null,
    reporter,
    takeCorrupt(kind) {
      const list = corrupt.get(kind) ?? [];
      corrupt.delete(kind);
      return list;
    },
  };
}

/**
 * The registries and the dispatch store report a skipped file as a warning with its path and error: this
 * logger hands those to `report` and drops everything else.
 */
export function collectingLogger(report: (r: CorruptFileReport) => void): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn(_msg: string, fields?: LogFields) {
      if (typeof fields?.path === 'string') report({ path: fields.path, error: String(fields.error) });
    },
    error() {},
    child: () => logger,
  };
  return logger;
}

/**
 * Files of ours that an earlier version left under data/distributed (dispatch tasks, cancel requests): the
 * services move them into data/cluster at first use, the copy reads only data/cluster and moves nothing.
 */
export async function legacyLeftovers(dataDir: string): Promise<string[]> {
  const dirs = legacyDistributedDirs(dataDir);
  const isTask = (name: string) => name.endsWith('.json') && isValidTaskId(name.slice(0, -'.json'.length));
  const out: string[] = [];
  for (const [dir, ours] of [
    [dirs.pending, isTask],
    [dirs.claims, isTask],
    [dirs.cancels, isValidRunId],
  ] as const) {
    const names = (await readdirOrEmpty(dir)).filter((name) => !isTempName(name) && ours(name));
    out.push(...names.map((name) => path.join(dir, name)));
  }
  return out;
}
