import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { testServices, type TestServices } from './testServices';
import { startWebServer } from './webServer';

const dirs: string[] = [];
const made: TestServices[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  for (const s of made.splice(0)) s.cleanup();
});

describe('startWebServer', () => {
  it('refuses to start without a console build and says which command builds it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dagu-web-'));
    dirs.push(dir);
    const services = testServices();
    made.push(services);
    await expect(
      startWebServer({ services, logger: silentLogger, dir, host: '127.0.0.1', port: 0 }),
    ).rejects.toThrow(`the console is not built (no .next/BUILD_ID in ${dir}); run \`npm run build\` first`);
  });
});
