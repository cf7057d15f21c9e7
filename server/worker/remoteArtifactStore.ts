// The artifact store of a run on a worker: the run keeps its artifacts in a scratch folder on the worker, and
// ArtifactShipper copies them through this store to the coordinator, which keeps them in the backend's store
// (the run's data directory, or the database) for the API, the console and retention. The coordinator's
// refusals come back as the errors the backend's store throws.

import type { ArtifactReply, ArtifactRequest } from '../coordinator/protocol';
import {
  ArtifactTooLargeError,
  InvalidArtifactPathError,
  type ArtifactEntry,
  type ArtifactStore,
} from '../store/artifactStore';
import type { CoordinatorApi } from './coordinatorClient';

export interface RemoteArtifactTarget {
  client: Pick<CoordinatorApi, 'artifacts'>;
  runId: string;
  attempt: number;
  workerId: string;
}

export function remoteArtifactStore(t: RemoteArtifactTarget): ArtifactStore {
  const call = async (
    runId: string,
    req: { op: 'list' } | { op: 'read'; path: string } | { op: 'put'; path: string; data: string },
  ): Promise<ArtifactReply> => {
    if (runId !== t.runId) throw new InvalidArtifactPathError(`run ${runId} is not this worker's run`);
    const reply = await t.client.artifacts(runId, {
      worker_id: t.workerId,
      attempt: t.attempt,
      ...req,
    } as ArtifactRequest);
    if ('too_large' in reply) throw new ArtifactTooLargeError(reply.too_large);
    if ('invalid' in reply) throw new InvalidArtifactPathError(reply.invalid);
    return reply;
  };
  return {
    async list(runId: string): Promise<ArtifactEntry[]> {
      const reply = await call(runId, { op: 'list' });
      return 'entries' in reply ? reply.entries : [];
    },
    async read(runId: string, path: string): Promise<Uint8Array | null> {
      const reply = await call(runId, { op: 'read', path });
      return 'data' in reply && reply.data !== null
        ? new Uint8Array(Buffer.from(reply.data, 'base64'))
        : null;
    },
    async put(runId: string, path: string, data: Uint8Array): Promise<void> {
      await call(runId, { op: 'put', path, data: Buffer.from(data).toString('base64') });
    },
    async removeRun(): Promise<void> {
      throw new Error('a worker does not remove run artifacts (history retention does, where they are kept)');
    },
  };
}
