// The testing folders hold fakes and fixtures: code that runs in a service must never reach them.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE_DIRS = ['server', 'app', 'components', 'scripts'];

/** Test files, test helpers and simulations may import a testing folder; nothing else may. */
function isTestCode(file: string): boolean {
  const rel = path.relative(ROOT, file).split(path.sep);
  return (
    /\.(test|contract)\.tsx?$/.test(file) ||
    rel.includes('testing') ||
    rel.includes('sim') ||
    /^test[A-Z]\w*\.ts$/.test(rel[rel.length - 1])
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(full);
    return /\.(ts|tsx|mjs)$/.test(e.name) ? [full] : [];
  });
}

describe('the testing folders', () => {
  it('are imported by tests, test helpers and simulations only', () => {
    const offenders = SOURCE_DIRS.flatMap((d) => sources(path.join(ROOT, d)))
      .filter((f) => !isTestCode(f))
      .filter((f) => /from '[^']*\/testing\/[^']*'/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    expect(offenders).toEqual([]);
  });
});
