// Run artifacts on PostgreSQL: one row per file in `run_artifacts` (migration 10), keyed by run ID and path,
// removed with the run by the foreign key's cascade. A put replaces the row in one statement.

import type { Pool } from 'pg';
import { isValidRunId } from '../../core/names';
import {
  checkArtifactSize,
  InvalidArtifactPathError,
  validArtifactPath,
  type ArtifactEntry,
  type ArtifactStore,
} from '../artifactStore';
import { quoteIdent } from './schemaVersion';

export class PgArtifactStore implements ArtifactStore {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.run_artifacts`;
  }

  async list(runId: string): Promise<ArtifactEntry[]> {
    if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
    const r = await this.pool.query<{ path: string; size: string | number }>(
      `select path, size from ${this.t} where run_id = $1 order by path`,
      [runId],
    );
    return r.rows.map((row) => ({ path: row.path, size: Number(row.size) }));
  }

  async read(runId: string, path: string): Promise<Uint8Array | null> {
    const clean = validArtifactPath(runId, path);
    const r = await this.pool.query<{ data: Buffer }>(
      `select data from ${this.t} where run_id = $1 and path = $2`,
      [runId, clean],
    );
    return r.rows.length === 0 ? null : new Uint8Array(r.rows[0].data);
  }

  async put(runId: string, path: string, data: Uint8Array): Promise<void> {
    const clean = validArtifactPath(runId, path);
    checkArtifactSize(clean, data.length);
    await this.pool.query(
      `insert into ${this.t} (run_id, path, size, data) values ($1, $2, $3, $4)
       on conflict (run_id, path) do update set size = excluded.size, data = excluded.data`,
      [runId, clean, data.length, Buffer.from(data.buffer, data.byteOffset, data.byteLength)],
    );
  }

  async removeRun(runId: string): Promise<void> {
    if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
    await this.pool.query(`delete from ${this.t} where run_id = $1`, [runId]);
  }
}
