// Tells which build of the CLI a `dagu` process started now would run, so that a scheduler can tell that
// `npm run build` replaced the build its pre-started run process loaded (server/runner/spareRun.ts).

import { open } from 'node:fs/promises';
import path from 'node:path';

/** The first line of every main bundle the build writes (scripts/build-cli.mjs). */
const BANNER = /^\/\/ dagu build (\S+)\n/;

/**
 * The ID in the first line of the dist/cli.cjs that `executable` (bin/dagu) loads. Null when there is no
 * such file or it is not a build of ours (the sources run through tsx, a stand-in executable).
 */
export async function buildOnDisk(executable: string): Promise<string | null> {
  const file = path.join(path.dirname(executable), '..', 'dist', 'cli.cjs');
  try {
    const handle = await open(file, 'r');
    try {
      const head = Buffer.alloc(128);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      return BANNER.exec(head.subarray(0, bytesRead).toString('latin1'))?.[1] ?? null;
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}
