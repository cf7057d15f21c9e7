// Creates DAGU_HOME on first start and seeds it with example DAGs; fails with one clear line when the
// directory cannot be used.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/types';
import type { Logger } from '../core/ports';
import { UsageError } from './exit';
import { EXAMPLE_DAGS } from './exampleDags';

export async function initHome(config: Config, logger: Logger): Promise<void> {
  let createdDags: boolean;
  try {
    await mkdir(config.home, { recursive: true });
    createdDags = (await mkdir(config.paths.dags_dir, { recursive: true })) !== undefined;
    await mkdir(config.paths.data_dir, { recursive: true });
    await mkdir(config.paths.log_dir, { recursive: true });
  } catch (err) {
    throw new UsageError(`DAGU_HOME ${config.home} cannot be used: ${(err as Error).message}`);
  }
  if (!createdDags) return;
  for (const [name, text] of Object.entries(EXAMPLE_DAGS)) {
    await writeFile(path.join(config.paths.dags_dir, name), text, { flag: 'wx' }).catch(() => undefined);
  }
  logger.info('Created DAGU_HOME with example DAGs', { home: config.home, dags_dir: config.paths.dags_dir });
}
