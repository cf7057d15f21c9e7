// Creates DAGU_HOME on first start and seeds it with example DAGs and Dagu's default base.yaml; fails with
// one clear line when the directory cannot be used.

import path from 'node:path';
import type { Config } from '../config/types';
import type { Logger } from '../core/ports';
import { setBaseConfig } from '../store/dagCatalog';
import { fsPromises } from '../store/fsPromises';
import { UsageError } from './exit';
import { DEFAULT_BASE_CONFIG } from './defaultBaseConfig';
import { EXAMPLE_DAGS } from './exampleDags';

export async function initHome(config: Config, logger: Logger): Promise<void> {
  let createdDags: boolean;
  try {
    await fsPromises().mkdir(config.home, { recursive: true });
    createdDags = (await fsPromises().mkdir(config.paths.dags_dir, { recursive: true })) !== undefined;
    await fsPromises().mkdir(config.paths.data_dir, { recursive: true });
    await fsPromises().mkdir(config.paths.log_dir, { recursive: true });
  } catch (err) {
    throw new UsageError(`DAGU_HOME ${config.home} cannot be used: ${(err as Error).message}`);
  }
  // On PostgreSQL the DAGs directory is a copy of the database's DAGs: examples written there would be
  // removed again at once, and a production database gets no example DAGs unasked (nor a base config, which
  // changes how every DAG runs).
  if (!createdDags || config.skip_examples || config.storage.backend === 'postgres') return;
  for (const [name, text] of Object.entries(EXAMPLE_DAGS)) {
    await fsPromises()
      .writeFile(path.join(config.paths.dags_dir, name), text, { flag: 'wx' })
      .catch(() => undefined);
  }
  // Dagu's default base config, as a fresh Dagu install writes it; never over a file that is there.
  const base = config.paths.base_config;
  if (base) {
    await fsPromises()
      .mkdir(path.dirname(base), { recursive: true })
      .then(() => fsPromises().writeFile(base, DEFAULT_BASE_CONFIG, { flag: 'wx' }))
      .catch(() => undefined);
  }
  logger.info('Created DAGU_HOME with example DAGs', {
    home: config.home,
    dags_dir: config.paths.dags_dir,
    base_config: base,
  });
}

/**
 * What every command takes from the configuration besides its values: DAGs loaded from the DAGs directory
 * inherit Dagu's base config (and `default_shell`, `tz`), and the Dagu settings config.yaml names without a
 * meaning here are logged once.
 */
export function useHomeConfig(config: Config, logger: Logger): void {
  const file = config.paths.base_config;
  setBaseConfig(
    config.paths.dags_dir,
    file ? { file, defaultShell: config.default_shell ?? null, tz: config.tz ?? null } : null,
  );
  for (const warning of config.warnings ?? []) logger.warn(warning);
}
