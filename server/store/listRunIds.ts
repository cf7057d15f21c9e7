// The IDs of every run directory under `DAGU_HOME/data/runs`, for finding a run by the start of its ID: one
// directory listing, no status read.

import path from 'node:path';
import { isValidRunId } from '../core/names';
import { readdirOrEmpty } from './fsutil';

export async function listRunIds(dataDir: string): Promise<string[]> {
  const names = await readdirOrEmpty(path.join(path.resolve(dataDir), 'runs'));
  return names.filter(isValidRunId);
}
