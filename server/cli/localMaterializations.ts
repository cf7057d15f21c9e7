// The build DAGs' manifests and path locks of this host (`<data dir>/build`), for the commands that run steps.
// They stay on local files whatever the storage backend: a build DAG's inputs and outputs are files of this
// host, and its runs never go to a worker.

import { join } from 'node:path';
import type { MaterializationStore } from '../core/build/types';
import type { Config } from '../config/types';
import { FileMaterializationStore } from '../store/fileMaterializations';

export function localMaterializations(config: Config): MaterializationStore {
  return new FileMaterializationStore(join(config.paths.data_dir, 'build'));
}
