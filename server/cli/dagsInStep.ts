// Before a one-shot command reads DAGs (`dagu start etl`, `dry`, `validate`) and needs no other store: on a
// database, this host's DAGs directory brought in step with the DAG definitions. Nothing on files, where the
// control plane's modules (every store, of files and of the database) are not even loaded: their set-up was a
// twentieth of a `dagu validate`.

import type { Config } from '../config/types';
import type { Logger } from '../core/ports';

export async function cliDagsInStep(config: Config, logger: Logger): Promise<void> {
  if (config.storage.backend !== 'postgres') return;
  const { cliControlPlane } = await import('./openControlPlane');
  await cliControlPlane(config, logger);
}
