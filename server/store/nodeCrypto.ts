// node:crypto, loaded at its first use rather than at import. Every run process imports the DAG-definition
// modules that hash (through its control plane), and almost none of them hashes anything, while loading
// node:crypto costs a few milliseconds of each start.

import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

let crypto: typeof Crypto | null = null;

export function nodeCrypto(): typeof Crypto {
  if (crypto === null) {
    crypto = (
      typeof require === 'function'
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in, loaded lazily
          require('node:crypto')
        : createRequire(import.meta.url)('node:crypto')
    ) as typeof Crypto;
  }
  return crypto;
}
