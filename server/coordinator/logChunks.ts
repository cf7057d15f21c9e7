// Writes the step-log chunks workers ship into the run log store (the attempt's log directory on files, the
// database's chunks on PostgreSQL). A chunk names the offset it starts at, so a resend (after a lost reply)
// or a gap is detected and nothing is written twice. Other files of a worker's attempt directory (a step's
// script, its outputs file) are not logs: they are kept in the attempt's directory on this host, as before.

import { appendFile, stat } from 'node:fs/promises';
import { mkdir } from '../store/fileCalls';
import path from 'node:path';
import { LogGapError, RUN_LOG_NAME_PATTERN, type RunLogStore } from '../store/runLogStore';
import type { RunStore } from '../store/types';
import type { RunStatus } from '../core/types';
import type { LogBatch, LogBatchReply, LogChunk, LogReply } from './protocol';
import { LOG_FILE_PATTERN } from './requestSchemas';
import { RunLocks } from './runLocks';

export interface LogChunksDeps {
  runs: RunStore;
  logs: Pick<RunLogStore, 'append' | 'createLogs'>;
}

/** Why a chunk was refused outright (the worker must stop shipping it), or null when it was handled. */
export type LogRefusal = { refused: true; status: 404 | 409; code: string; error: string };

export class LogChunks {
  /** Appends to one file run one at a time: the size check and the write must not interleave. */
  private readonly fileLocks = new RunLocks();

  constructor(private readonly d: LogChunksDeps) {}

  /**
   * Appends `chunk.data` if the file holds exactly `chunk.offset` bytes. `next_offset` is always the size
   * afterwards; `accepted` says the data is now in the file (written now, or by an earlier send).
   * Runs that ended still take chunks from their worker: the last lines arrive after the final status.
   */
  async append(runId: string, chunk: LogChunk): Promise<LogReply | LogRefusal> {
    const r = await this.appendBatch(runId, {
      worker_id: chunk.worker_id,
      attempt: chunk.attempt,
      chunks: [chunk],
    });
    return 'refused' in r ? r : r.replies[0];
  }

  /**
   * `append` for a piece of each of several files of one attempt: the run is read once, the pieces are
   * appended in order, and each is answered as `append` answers it. A bad name refuses the whole batch.
   */
  async appendBatch(runId: string, batch: LogBatch): Promise<LogBatchReply | LogRefusal> {
    const bad = batch.chunks.find((c) => !LOG_FILE_PATTERN.test(c.file) || c.file === '.' || c.file === '..');
    if (bad) {
      return {
        refused: true,
        status: 409,
        code: 'bad_file',
        error: `invalid log file name ${JSON.stringify(bad.file)}`,
      };
    }
    const r = await this.d.runs.readStatus(runId);
    if (r.kind === 'missing')
      return { refused: true, status: 404, code: 'not_found', error: `run ${runId} does not exist` };
    if (r.kind === 'corrupt')
      return { refused: true, status: 409, code: 'unreadable', error: `run ${runId} cannot be read` };
    const s = r.status;
    if (s.attempt !== batch.attempt || s.worker_id !== batch.worker_id) {
      return {
        refused: true,
        status: 409,
        code: 'not_your_run',
        error: `attempt ${batch.attempt} of run ${runId} is not worker ${batch.worker_id}'s`,
      };
    }
    return { replies: await this.appendChunks(s, batch.chunks) };
  }

  /**
   * Appends the pieces to the logs of run `s`, whose attempt the caller has checked is the sender's, with
   * its names checked too (a status report with its logs, under that run's lock): each is answered as
   * `append` answers it, in order.
   */
  async appendChunks(s: RunStatus, chunks: LogBatch['chunks']): Promise<LogReply[]> {
    const made = await this.createNew(s, chunks);
    const replies: LogReply[] = [];
    for (const chunk of chunks) {
      const reply = made.get(chunk);
      replies.push(reply ?? (await this.appendTo(s, chunk)));
    }
    return replies;
  }

  /**
   * The logs a batch starts (the pieces at offset 0: a worker's first shipment of a short run carries its
   * own log and the step's two, often empty), made in one write where the store can; the reply of each
   * piece so made, by chunk. A log that existed answers its size as an append at 0 would, except one that
   * existed empty while the piece has bytes: that piece, and all the others, are appended one by one.
   */
  private async createNew(
    s: RunStatus,
    chunks: LogBatch['chunks'],
  ): Promise<Map<LogBatch['chunks'][number], LogReply>> {
    const made = new Map<LogBatch['chunks'][number], LogReply>();
    const createLogs = this.d.logs.createLogs?.bind(this.d.logs);
    if (!createLogs) return made;
    const names = new Set<string>();
    const starts = chunks.filter((c) => {
      if (c.offset !== 0 || !RUN_LOG_NAME_PATTERN.test(c.file) || names.has(c.file)) return false;
      names.add(c.file);
      return true;
    });
    if (starts.length < 2) return made;
    const data = starts.map((c) => Buffer.from(c.data, c.encoding === 'base64' ? 'base64' : 'utf8'));
    const sizes = await createLogs(
      starts.map((c, i) => ({
        ref: { dag_name: s.dag_name, run_id: s.run_id, attempt: s.attempt, name: c.file },
        data: data[i],
      })),
    );
    starts.forEach((c, i) => {
      const size = sizes[i];
      if (size === 0 && data[i].byteLength > 0) return;
      made.set(c, { accepted: data[i].byteLength <= size, next_offset: size });
    });
    return made;
  }

  private async appendTo(s: RunStatus, chunk: LogBatch['chunks'][number]): Promise<LogReply> {
    const data = Buffer.from(chunk.data, chunk.encoding === 'base64' ? 'base64' : 'utf8');
    if (RUN_LOG_NAME_PATTERN.test(chunk.file)) {
      const ref = { dag_name: s.dag_name, run_id: s.run_id, attempt: s.attempt, name: chunk.file };
      return this.fileLocks.with(`${s.run_id}/${s.attempt}/${chunk.file}`, async () => {
        try {
          const size = await this.d.logs.append(ref, chunk.offset, data);
          return { accepted: chunk.offset + data.byteLength <= size, next_offset: size };
        } catch (err) {
          if (err instanceof LogGapError) return { accepted: false, next_offset: err.size };
          throw err;
        }
      });
    }
    const dir = this.d.runs.logDir(s.dag_name, s.run_id, s.attempt);
    const file = path.join(dir, chunk.file);
    return this.fileLocks.with(file, async () => {
      await mkdir(dir, true);
      const size = await sizeOf(file);
      if (size !== chunk.offset) {
        return { accepted: chunk.offset + data.byteLength <= size, next_offset: size };
      }
      if (data.byteLength === 0) return { accepted: true, next_offset: size };
      await appendFile(file, data);
      return { accepted: true, next_offset: size + data.byteLength };
    });
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}
