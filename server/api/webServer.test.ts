import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { silentLogger } from '../core/ports';
import { startWebServer } from './webServer';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('startWebServer', () => {
  it('refuses to start without a console build and says which command builds it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dagu-web-'));
    dirs.push(dir);
    const config = loadConfig({ env: { NODE_ENV: 'test', DAGU_HOME: dir } });
    await expect(
      startWebServer({ config, logger: silentLogger, dir, host: '127.0.0.1', port: 0 }),
    ).rejects.toThrow(`the console is not built (no .next/BUILD_ID in ${dir}); run \`npm run build\` first`);
  });
});
