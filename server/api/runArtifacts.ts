// A run's artifacts (the files its steps left in DAG_RUN_ARTIFACTS_DIR) for the API and the console: the
// list with sizes, and one file as an attachment. Paths come from the request, so the store refuses any that
// is not a clean relative one (`../x`, an absolute path) before it looks anything up.

import { InvalidArtifactPathError } from '../store/artifactStore';
import { BadRequestError, NotFoundError } from './errors';
import { getRun } from './runs';
import type { Services } from './services';

export interface RunArtifacts {
  run_id: string;
  artifacts: Array<{ path: string; size: number }>;
}

function badPath<T>(err: unknown): T {
  if (err instanceof InvalidArtifactPathError) throw new BadRequestError(err.message);
  throw err;
}

export async function listRunArtifacts(svc: Services, runId: string): Promise<RunArtifacts> {
  const status = await getRun(svc, runId);
  const artifacts = await svc.artifacts.list(status.run_id).catch(badPath<never>);
  return { run_id: status.run_id, artifacts };
}

/** The attachment's file name: the artifact's last name with anything unusual replaced. */
function fileName(path: string): string {
  const last = path.split('/').pop() ?? 'artifact';
  return last.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'artifact';
}

export async function downloadRunArtifact(
  svc: Services,
  runId: string,
  path: string | null,
): Promise<Response> {
  if (path === null || path === '') throw new BadRequestError('path is required');
  const status = await getRun(svc, runId);
  const data = await svc.artifacts.read(status.run_id, path).catch(badPath<never>);
  if (data === null) throw new NotFoundError(`run ${status.run_id} has no artifact ${JSON.stringify(path)}`);
  return new Response(new Blob([new Uint8Array(data)]).stream(), {
    status: 200,
    headers: {
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': `attachment; filename="${fileName(path)}"`,
      'Content-Length': String(data.length),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
