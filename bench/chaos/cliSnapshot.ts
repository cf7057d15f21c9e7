// A private copy of the built CLI for one soak. A soak runs for up to an hour and starts a process for every
// run; a rebuild of dist/ in the working tree meanwhile (it removes the bundle first) would make those starts
// fail for reasons that have nothing to do with the product, so every process of the soak uses the copy.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../tests/integration/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Copies bin/dagu and the CLI's bundles (the main one, the parts some commands load, their code caches) under
 * `dir`; returns the copied launcher once it answers `--version`.
 */
export async function snapshotCli(dir: string): Promise<string> {
  mkdirSync(path.join(dir, 'bin'), { recursive: true });
  mkdirSync(path.join(dir, 'dist'), { recursive: true });
  // The bundle loads a few packages (zod) from node_modules at run time.
  if (!existsSync(path.join(dir, 'node_modules')))
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const launcher = path.join(dir, 'bin', 'dagu');
  let last = '';
  for (let i = 0; i < 60; i++) {
    try {
      copyFileSync(path.join(ROOT, 'bin', 'dagu'), launcher);
      for (const name of readdirSync(path.join(ROOT, 'dist'))) {
        if (/\.(cjs|cache)$/.test(name) && !name.startsWith('web.'))
          copyFileSync(path.join(ROOT, 'dist', name), path.join(dir, 'dist', name));
      }
      const r = spawnSync(process.execPath, [launcher, '--version'], { encoding: 'utf8' });
      if (r.status === 0) return launcher;
      last = r.stderr;
    } catch (err) {
      last = (err as Error).message;
    }
    // A build of the working tree is under way: try again once it has written the bundle.
    await sleep(1000);
  }
  throw new Error(`could not copy a working CLI from ${ROOT}/dist: ${last}`);
}
