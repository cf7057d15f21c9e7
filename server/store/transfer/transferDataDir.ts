// Copying a data directory into PostgreSQL, or comparing the two: every kind of record in turn, each by the
// same merge of both sides (syncKind). A copy only inserts what the database lacks, so a second copy of an
// unchanged directory inserts nothing, and a record that differs is reported and left alone. Two copies
// never run at once: a copy holds a session advisory lock of its own for its whole length.

import type { Pool } from 'pg';
import { quoteIdent } from '../postgres/schemaVersion';
import { artifactRecords } from './artifactRecords';
import { dagRecords } from './dagRecords';
import { eventRecords, failoverRecords } from './eventRecords';
import { legacyLeftovers, type FileSource } from './fileSource';
import { logRecords } from './logRecords';
import { runRecords, skippedRunVerdicts } from './runRecords';
import { schedulerStateRecord } from './schedulerStateRecord';
import { smallRecords } from './smallRecords';
import { stateRecords } from './stateRecords';
import { syncKind, type KindAdapter } from './syncKind';
import { taskRecords } from './taskRecords';
import { KINDS, emptyReport, noteSkipped, type TransferMode, type TransferReport } from './transferReport';

/** Any 64-bit constant other than the migration lock's: held by a running copy. */
const COPY_LOCK = 7_406_215_938_002;

/** Thrown when another copy into the same database is running. */
export class CopyInProgressError extends Error {
  constructor() {
    super('another `dagu storage migrate` is copying into this database now');
    this.name = 'CopyInProgressError';
  }
}

export interface TransferTarget {
  pool: Pool;
  schema: string;
}

export async function transferDataDir(
  files: FileSource,
  target: TransferTarget,
  mode: TransferMode,
): Promise<TransferReport> {
  const report = emptyReport(mode);
  const { pool, schema } = target;
  const skippedRun = skippedRunVerdicts(files);
  const adapters: KindAdapter<unknown>[] = [
    dagRecords(files, pool, schema),
    runRecords(files, pool, schema),
    logRecords(files, pool, schema),
    artifactRecords(files, pool, schema, skippedRun),
    stateRecords(files, pool, schema),
    ...smallRecords(files, pool, schema, skippedRun),
    eventRecords(files, pool, schema),
    failoverRecords(files, pool, schema),
    schedulerStateRecord(files, pool, schema),
    taskRecords(files, pool, schema, skippedRun),
  ] as KindAdapter<unknown>[];
  const walk = async () => {
    for (const kind of KINDS) {
      await syncKind(
        adapters.find((a) => a.kind === kind)!,
        mode,
        report,
      );
      for (const c of files.takeCorrupt(kind)) noteSkipped(report, kind, c.path, c.error);
    }
  };
  if (mode === 'copy') {
    await holdingCopyLock(pool, walk);
    const adopted = await adoptSlotNamespace(pool, schema, files.paths.dataDir);
    if (adopted) report.notes.push(adopted);
  } else await walk();
  const leftovers = await legacyLeftovers(files.paths.dataDir);
  if (leftovers.length > 0) {
    report.notes.push(
      `${leftovers.length} dispatch task or cancel request files of an earlier dagu version are in ` +
        `data/distributed and were not read; a dagu coordinator or scheduler on the files moves them to ` +
        `data/cluster when it starts: run one once, stop it, and copy again`,
    );
  }
  return report;
}

/**
 * Makes the database name its slots as the data directory did, so that a slot that already ran on the files
 * keeps its run ID on the database and the at-most-once rule still stops it running again (a slot run ID is
 * a hash of the namespace and the slot). Only done before any scheduler has run on the database: once one
 * has, its slots carry the database's own namespace, and changing it could run one of them twice.
 */
async function adoptSlotNamespace(pool: Pool, schema: string, dataDir: string): Promise<string | null> {
  const s = quoteIdent(schema);
  const r = await pool.query(
    `update ${s}.installation set installation_id = $1
      where id = 1 and installation_id <> $1 and not exists (select 1 from ${s}.scheduler_lease)`,
    [`path:${dataDir}`],
  );
  if ((r.rowCount ?? 0) > 0)
    return `slot run IDs on the database continue those of ${dataDir}: a slot that ran on the files is not run again`;
  const now = await pool.query<{ installation_id: string }>(
    `select installation_id from ${s}.installation where id = 1`,
  );
  return now.rows[0]?.installation_id === `path:${dataDir}`
    ? null
    : `a scheduler has already run on this database, so its slot run IDs are its own: a slot that ran on ` +
        `the files and is still due may run once more there`;
}

async function holdingCopyLock(pool: Pool, work: () => Promise<void>): Promise<void> {
  const c = await pool.connect();
  // Held for the whole copy: a connection lost between statements must fail the copy, not crash the process.
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  c.on('error', onError);
  try {
    const r = await c.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [COPY_LOCK]);
    if (!r.rows[0].locked) throw new CopyInProgressError();
    try {
      await work();
    } finally {
      await c.query('select pg_advisory_unlock($1)', [COPY_LOCK]);
    }
  } finally {
    c.off('error', onError);
    c.release(broken);
  }
}

/**
 * The scheduler lock's holder in the database, or null when no scheduler has ever taken it there. A database
 * a scheduler has run on has had records consumed (queue items, dispatch tasks): copying into it again could
 * bring them back, so the command refuses unless forced.
 */
export async function databaseSchedulerHolder(pool: Pool, schema: string): Promise<string | null> {
  const r = await pool.query<{ instance_id: string; host: string; epoch: string; released: boolean }>(
    `select instance_id, host, epoch, released from ${quoteIdent(schema)}.scheduler_lease`,
  );
  if (r.rowCount === 0) return null;
  const l = r.rows[0];
  return `instance ${l.instance_id} on ${l.host} (epoch ${l.epoch}${l.released ? ', released' : ''})`;
}
