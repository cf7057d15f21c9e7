// The artifacts of each run (the files its steps left in DAG_RUN_ARTIFACTS_DIR, or in the DAG's own
// `artifacts.dir`), from the data directory into `run_artifacts`, a run's artifacts in one transaction, as
// PgArtifactStore keeps them. Only runs the copy takes are read (an artifact belongs to a run, and the table's
// foreign key needs it). Artifacts are compared by path, size and SHA-256, so --verify reads every one.

import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { MAX_ARTIFACT_BYTES } from '../artifactStore';
import { listRunIds } from '../listRunIds';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import type { FileSource } from './fileSource';
import type { SkippedRunVerdict } from './runRecords';
import type { KindAdapter, SourceItem } from './syncKind';

export interface ArtifactFile {
  path: string;
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
}

export interface RunArtifacts {
  run_id: string;
  /** By path. */
  files: ArtifactFile[];
}

/** Runs whose artifacts are read per page of the database walk. */
const PAGE = 100;

export function artifactRecords(
  files: FileSource,
  pool: Pool,
  schema: string,
  skippedRunOf: SkippedRunVerdict,
): KindAdapter<RunArtifacts> {
  const s = quoteIdent(schema);
  return {
    kind: 'run artifacts',
    batch: 1,
    source: async function* (): AsyncGenerator<SourceItem<RunArtifacts>> {
      for (const runId of (await listRunIds(files.paths.dataDir)).sort()) {
        // A run the copy does not take is reported with the runs; its artifacts would have no run to go with.
        if ((await skippedRunOf(runId)) !== null) continue;
        const listed = await files.artifacts.list(runId);
        if (listed.length === 0) continue;
        const out: ArtifactFile[] = [];
        for (const entry of listed) {
          const data = await files.artifacts.read(runId, entry.path);
          if (data === null) continue; // removed since the listing
          out.push({ path: entry.path, size: data.length, sha256: sha256(data) });
        }
        if (out.length > 0) yield { key: runId, value: { run_id: runId, files: out } };
      }
    },
    target: () => artifactsInDatabase(pool, s),
    differences: artifactDifferences,
    write: async (runs, refuse) => {
      let n = 0;
      for (const run of runs) {
        // A run refused midway (an artifact grew past the limit since it was listed) is rolled back whole.
        const outcome = await inTransaction(pool, (c) => copyRunArtifacts(c, s, files, run)).catch(
          (err: unknown) => {
            if (err instanceof Refused) return err.message;
            throw err;
          },
        );
        if (outcome === 'copied') n++;
        else if (outcome !== 'there') refuse(run.run_id, outcome);
      }
      return n;
    },
  };
}

/** Thrown inside a run's transaction to roll it back and refuse the run with the message. */
class Refused extends Error {}

function tooLarge(file: string, size: number): string {
  return (
    `artifact ${file} is ${size} bytes, over the ${MAX_ARTIFACT_BYTES} bytes a run artifact may have in ` +
    `PostgreSQL, so the run's artifacts are not copied`
  );
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

async function* artifactsInDatabase(
  pool: Pool,
  s: string,
): AsyncGenerator<{ key: string; value: RunArtifacts }> {
  type Row = { run_id: string; path: string; size: string; sha256: string };
  let after: string | null = null;
  for (;;) {
    const r: QueryResult<Row> = await pool.query<Row>(
      `select run_id, path, size, encode(sha256(data), 'hex') as sha256 from ${s}.run_artifacts
          where run_id in (select distinct run_id from ${s}.run_artifacts
                            where ($1::text is null or run_id > $1) order by run_id limit ${PAGE})
          order by run_id, path`,
      [after],
    );
    if (r.rows.length === 0) return;
    let current: RunArtifacts | null = null;
    for (const row of r.rows) {
      if (current !== null && current.run_id !== row.run_id) yield { key: current.run_id, value: current };
      if (current === null || current.run_id !== row.run_id) current = { run_id: row.run_id, files: [] };
      current.files.push({ path: row.path, size: Number(row.size), sha256: row.sha256 });
    }
    yield { key: current!.run_id, value: current! };
    after = current!.run_id;
  }
}

/** Per artifact: on one side only, another size, or other bytes. */
export function artifactDifferences(inFiles: RunArtifacts, inDatabase: RunArtifacts): string[] {
  const there = new Map(inDatabase.files.map((f) => [f.path, f]));
  const here = new Set(inFiles.files.map((f) => f.path));
  const out: string[] = [];
  for (const f of inFiles.files) {
    const d = there.get(f.path);
    if (d === undefined) out.push(`${f.path} is not in the database`);
    else if (d.size !== f.size)
      out.push(`${f.path} has ${f.size} bytes in the files, ${d.size} in the database`);
    else if (d.sha256 !== f.sha256) out.push(`${f.path} has other bytes in the database`);
  }
  for (const f of inDatabase.files) if (!here.has(f.path)) out.push(`${f.path} is only in the database`);
  return out;
}

/**
 * Writes every artifact of the run, unless the database has artifacts of it already (`there`); the reason
 * when it cannot: the run is not in the database, or an artifact is larger than the table keeps.
 */
async function copyRunArtifacts(
  c: PoolClient,
  s: string,
  files: FileSource,
  run: RunArtifacts,
): Promise<string> {
  const big = run.files.find((f) => f.size > MAX_ARTIFACT_BYTES);
  if (big !== undefined) return tooLarge(big.path, big.size);
  const known = await c.query(`select 1 from ${s}.runs where run_id = $1`, [run.run_id]);
  if (known.rowCount === 0) return 'the run is not in the database, so its artifacts cannot be';
  const exists = await c.query(`select 1 from ${s}.run_artifacts where run_id = $1 limit 1`, [run.run_id]);
  if ((exists.rowCount ?? 0) > 0) return 'there';
  for (const f of run.files) {
    const data = await files.artifacts.read(run.run_id, f.path);
    // Taken as it was when listed: one that changed or went since is copied as it is now, or left out.
    if (data === null) continue;
    if (data.length > MAX_ARTIFACT_BYTES) throw new Refused(tooLarge(f.path, data.length));
    await c.query(`insert into ${s}.run_artifacts (run_id, path, size, data) values ($1, $2, $3, $4)`, [
      run.run_id,
      f.path,
      data.length,
      Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    ]);
  }
  return 'copied';
}
