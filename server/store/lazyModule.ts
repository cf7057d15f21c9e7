// A built-in module loaded at its first use rather than at import: for modules that cost a run process's
// start a few milliseconds while most runs never call them (see fsPromises.ts, nodeCrypto.ts).

import { createRequire } from 'node:module';

/** Returns a getter that loads `specifier` (a `node:` built-in) on its first call and the same module after. */
export function lazyModule<T>(specifier: `node:${string}`): () => T {
  let loaded: T | null = null;
  return () => {
    if (loaded === null) {
      // The CLI's bundle is CommonJS and has `require`; the ES modules the tests load have `import.meta.url`.
      loaded = (
        typeof require === 'function'
          ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in, loaded lazily
            require(specifier)
          : createRequire(import.meta.url)(specifier)
      ) as T;
    }
    return loaded;
  };
}
