import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildOnDisk } from './buildOnDisk';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'dagu-build-id-'));
  mkdirSync(path.join(root, 'bin'));
  mkdirSync(path.join(root, 'dist'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const executable = () => path.join(root, 'bin', 'dagu');
const bundle = (text: string) => writeFileSync(path.join(root, 'dist', 'cli.cjs'), text);

describe('buildOnDisk', () => {
  it('reads the build ID from the first line of the dist/cli.cjs beside the executable', async () => {
    bundle('// dagu build mx4y23ab-a854b3fa\n"use strict";var a=1;\n');
    expect(await buildOnDisk(executable())).toBe('mx4y23ab-a854b3fa');
  });

  it('tells no build for a bundle without the line, or no bundle at all', async () => {
    expect(await buildOnDisk(executable())).toBeNull();
    bundle('"use strict";// dagu build not-on-the-first-line\n');
    expect(await buildOnDisk(executable())).toBeNull();
  });
});
