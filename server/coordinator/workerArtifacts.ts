// The artifact store for runs on workers: a worker's run keeps its artifacts in a scratch folder and copies
// them, after each step and before its final status, through the coordinator into the backend's store (the
// run's data directory, or the database), where the API serves them and retention removes them. The
// coordinator answers only for the asking worker's running attempt.

import { ArtifactTooLargeError, InvalidArtifactPathError, type ArtifactStore } from '../store/artifactStore';
import type { RunStore } from '../store/types';
import type { ArtifactReply, ArtifactRequest } from './protocol';
import { notRunningFor, type WorkerStateRefusal } from './workerState';

export interface WorkerArtifactsDeps {
  runs: Pick<RunStore, 'readStatus'>;
  artifacts: ArtifactStore;
}

export class WorkerArtifacts {
  constructor(private readonly d: WorkerArtifactsDeps) {}

  async handle(runId: string, req: ArtifactRequest): Promise<ArtifactReply | WorkerStateRefusal> {
    const refusal = await notRunningFor(this.d.runs, runId, req);
    if (refusal) return refusal;
    const store = this.d.artifacts;
    try {
      switch (req.op) {
        case 'list':
          return { entries: await store.list(runId) };
        case 'read': {
          const data = await store.read(runId, req.path);
          return { data: data === null ? null : Buffer.from(data).toString('base64') };
        }
        case 'put':
          await store.put(runId, req.path, Buffer.from(req.data, 'base64'));
          return { stored: true };
      }
    } catch (err) {
      if (err instanceof ArtifactTooLargeError) return { too_large: err.message };
      if (err instanceof InvalidArtifactPathError) return { invalid: err.message };
      throw err;
    }
  }
}
