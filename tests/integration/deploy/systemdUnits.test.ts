// The systemd units as CI checks them: the four services, their shared home, their commands and flags
// against the CLI's own help, their variables against those dagu reads, and `systemd-analyze verify`.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAGU, ROOT } from '../harness';
import { configFrom, KNOWN_ENV } from './daguEnv';
import { parseUnit, unitEnvironment } from './unitFile';

const SYSTEMD = path.join(ROOT, 'deploy', 'systemd');

/** The CLI's help for `dagu <args>`: where its commands and their flags are read from. */
function daguHelp(args: string[]): string {
  return execFileSync(process.execPath, [DAGU, ...args, '--help'], { encoding: 'utf8' });
}

let commands: Set<string>;
beforeAll(() => {
  const help = daguHelp([]);
  const section = help.slice(help.indexOf('Commands:'));
  commands = new Set([...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]));
  expect(commands).toContain('scheduler');
});

/** Checks `dagu <command> --flag ...` against `dagu <command> --help`. */
function expectRealCommand(argv: string[], where: string) {
  const [command, ...rest] = argv;
  expect(commands, `${where}: dagu ${command}`).toContain(command);
  const help = daguHelp([command]);
  for (const flag of rest.filter((a) => a.startsWith('--'))) {
    expect(help, `${where}: dagu ${command} ${flag}`).toMatch(new RegExp(`\\s${flag.split('=')[0]}\\b`));
  }
}

describe('the systemd units', () => {
  const units = readdirSync(SYSTEMD).filter((f) => f.endsWith('.service'));

  it('cover the scheduler, server, coordinator and worker', () => {
    expect(units.sort()).toEqual([
      'dagu-coordinator.service',
      'dagu-scheduler.service',
      'dagu-server.service',
      'dagu-worker.service',
    ]);
  });

  it('restart always, kill only the main process and share one DAGU_HOME on the shared mount', () => {
    const homes = new Set<string>();
    for (const unit of units) {
      const service = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Service')!;
      expect(service.get('Restart'), unit).toEqual(['always']);
      expect(service.get('KillMode'), unit).toEqual(['process']);
      const home = unitEnvironment(service.get('Environment') ?? []).get('DAGU_HOME');
      expect(home, unit).toMatch(/^\//);
      homes.add(home!);
      const unitSection = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Unit')!;
      expect(unitSection.get('RequiresMountsFor'), unit).toEqual([home]);
    }
    expect([...homes]).toHaveLength(1);
  });

  it('start real dagu commands with real flags, and set only variables dagu reads', () => {
    for (const unit of units) {
      const service = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Service')!;
      const [exec] = service.get('ExecStart')!;
      const [binary, ...argv] = exec.split(/\s+/);
      expect(path.basename(binary), unit).toBe('dagu');
      expectRealCommand(argv, unit);
      for (const name of unitEnvironment(service.get('Environment') ?? []).keys())
        if (name.startsWith('DAGU_')) expect(KNOWN_ENV, `${unit}: ${name}`).toContain(name);
      // The unit's environment (with the shared home swapped for a temp one) is one dagu accepts.
      const env = Object.fromEntries(unitEnvironment(service.get('Environment') ?? []));
      const home = mkdtempSync(path.join(tmpdir(), 'dagu-unit-'));
      try {
        expect(() => configFrom({ ...env, DAGU_HOME: home }), unit).not.toThrow();
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  });

  it("pass systemd's own check without a warning", () => {
    // Copies whose ExecStart names this checkout's bin/dagu, so the check can also see an executable there.
    const dir = mkdtempSync(path.join(tmpdir(), 'dagu-unit-'));
    try {
      const copies = units.map((unit) => {
        const text = readFileSync(path.join(SYSTEMD, unit), 'utf8');
        writeFileSync(path.join(dir, unit), text.replaceAll('/usr/local/bin/dagu', DAGU));
        return path.join(dir, unit);
      });
      const r = spawnSync('systemd-analyze', ['verify', '--man=no', ...copies], { encoding: 'utf8' });
      expect(r.error).toBeUndefined();
      expect(r.stderr + r.stdout).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ship environment file examples that set only variables dagu reads', () => {
    const examples = readdirSync(SYSTEMD).filter((f) => f.endsWith('.env.example'));
    expect(examples.sort()).toEqual(['coordinator.env.example', 'worker.env.example']);
    for (const file of examples) {
      const names = readFileSync(path.join(SYSTEMD, file), 'utf8')
        .split('\n')
        .map((l) => /^#?(DAGU_[A-Z_]+)=/.exec(l.trim())?.[1])
        .filter((n): n is string => n !== undefined);
      expect(names, file).toContain('DAGU_COORDINATOR_TOKEN');
      for (const name of names) expect(KNOWN_ENV, `${file}: ${name}`).toContain(name);
    }
  });
});
