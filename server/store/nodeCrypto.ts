// node:crypto, loaded at its first use rather than at import. Every run process imports the DAG-definition
// modules that hash (through its control plane), and almost none of them hashes anything, while loading
// node:crypto costs a few milliseconds of each start.

import type * as Crypto from 'node:crypto';
import { lazyModule } from './lazyModule';

export const nodeCrypto = lazyModule<typeof Crypto>('node:crypto');
