// The editor's calls to /api/v1/dags: the DAG file's text, checking a text, saving (with the outcomes a save
// can have besides success), creating, renaming and deleting.

import { queryOptions } from '@tanstack/react-query';
import type {
  CreateDagRequest,
  DagSaveResult,
  DagSpec,
  DagSpecCheck,
  DagSpecConflict,
  DagWriteResult,
  SpecDiagnostic,
} from '@/components/apiTypes';
import { ApiRequestError, getJson, postJson } from '../../api';
import { queryKeys } from '../../queryKeys';

const enc = encodeURIComponent;

/**
 * The text as loaded: fetched when the editor opens, never refreshed under the operator's edits, and dropped
 * when it closes (gcTime 0), so opening the page again reads the disk anew.
 */
export const dagSpecQuery = (name: string) =>
  queryOptions({
    queryKey: queryKeys.dagSpec(name),
    queryFn: ({ signal }) => getJson<DagSpec>(`/api/v1/dags/${enc(name)}/spec`, signal),
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
  });

export function validateSpec(name: string, yaml: string): Promise<DagSpecCheck> {
  return postJson<DagSpecCheck>(`/api/v1/dags/${enc(name)}/validate`, { yaml });
}

/** What a save ended with; other refusals (403, 404, network) are thrown as ApiRequestError. */
export type SaveOutcome =
  | { kind: 'saved'; version: string; warnings: SpecDiagnostic[] }
  | { kind: 'invalid'; errors: SpecDiagnostic[] }
  | { kind: 'conflict'; current: DagSpecConflict['current'] };

export async function saveSpec(name: string, yaml: string, baseVersion: string): Promise<SaveOutcome> {
  try {
    const r = await postJson<DagSaveResult>(`/api/v1/dags/${enc(name)}/spec`, {
      yaml,
      base_version: baseVersion,
    });
    return { kind: 'saved', version: r.version, warnings: r.warnings };
  } catch (err) {
    if (err instanceof ApiRequestError && err.status === 409 && isConflict(err.body)) {
      return { kind: 'conflict', current: err.body.current };
    }
    if (err instanceof ApiRequestError && err.status === 422 && hasErrors(err.body)) {
      return { kind: 'invalid', errors: err.body.errors };
    }
    throw err;
  }
}

function isConflict(body: unknown): body is DagSpecConflict {
  return typeof body === 'object' && body !== null && 'current' in body;
}

function hasErrors(body: unknown): body is { errors: SpecDiagnostic[] } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { errors?: unknown }).errors);
}

export function createDag(req: CreateDagRequest): Promise<DagWriteResult> {
  return postJson<DagWriteResult>('/api/v1/dags', req);
}

export function renameDag(name: string, newName: string, baseVersion?: string): Promise<DagWriteResult> {
  return postJson<DagWriteResult>(`/api/v1/dags/${enc(name)}/rename`, {
    new_name: newName,
    base_version: baseVersion,
  });
}

export function deleteDag(name: string, baseVersion?: string): Promise<unknown> {
  return postJson<unknown>(`/api/v1/dags/${enc(name)}/delete`, { base_version: baseVersion });
}
