import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './loadConfig';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'dagu-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const load = (env: Record<string, string> = {}) =>
  loadConfig({ env: { DAGU_HOME: home, ...env } as unknown as NodeJS.ProcessEnv });

describe('paths.suspend_flags_dir', () => {
  it('is data/suspend in a home of this product', () => {
    expect(load().paths.suspend_flags_dir).toBe(path.join(home, 'data', 'suspend'));
    expect(load({ DAGU_DATA_DIR: path.join(home, 'elsewhere') }).paths.suspend_flags_dir).toBe(
      path.join(home, 'elsewhere', 'suspend'),
    );
  });

  it("is a Dagu home's own suspend directory when it has one, so its suspended DAGs stay suspended", () => {
    mkdirSync(path.join(home, 'suspend'));
    expect(load().paths.suspend_flags_dir).toBe(path.join(home, 'suspend'));
  });

  it("honours Dagu's key in config.yaml, relative to the home, and the environment over it", () => {
    writeFileSync(path.join(home, 'config.yaml'), 'paths:\n  suspend_flags_dir: flags\n');
    const c = load();
    expect(c.paths.suspend_flags_dir).toBe(path.join(home, 'flags'));
    expect((c.warnings ?? []).join('\n')).not.toMatch(/suspend_flags_dir/);
    expect(load({ DAGU_SUSPEND_FLAGS_DIR: '/srv/flags' }).paths.suspend_flags_dir).toBe('/srv/flags');
  });
});
