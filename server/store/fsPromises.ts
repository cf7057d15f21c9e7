// node:fs/promises, loaded at its first use rather than at import. A run process imports modules that use it
// (the file run-log store, the params-schema reader, the home's set-up) but on its usual path calls none of
// them, and the module costs about 2% of a run's start: it loads readline and the file-watch code with it.
// The stores' own file calls use the callback API (fileCalls.ts).

import type * as FsPromises from 'node:fs/promises';
import { lazyModule } from './lazyModule';

export const fsPromises = lazyModule<typeof FsPromises>('node:fs/promises');
