// The systemd units as CI checks them: the four services, their shared home, their commands and flags
// against the CLI's own help, their variables against those dagu reads, the PostgreSQL drop-in and env file,
// and `systemd-analyze verify`.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { pgSettings } from '../../../server/store/postgres/connect';
import { DAGU, ROOT } from '../harness';
import { configFrom, KNOWN_ENV } from './daguEnv';
import { environmentFile, parseUnit, unitEnvironment } from './unitFile';

const SYSTEMD = path.join(ROOT, 'deploy', 'systemd');
/** The drop-in that points a unit at the PostgreSQL settings, and the units it is for. */
const PG_DROP_IN = 'postgres.conf';
const PG_UNITS = ['dagu-scheduler.service', 'dagu-server.service', 'dagu-coordinator.service'];

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
      // The PostgreSQL drop-in where systemd finds it, beside the units it is for.
      for (const unit of PG_UNITS) {
        mkdirSync(path.join(dir, `${unit}.d`));
        copyFileSync(path.join(SYSTEMD, PG_DROP_IN), path.join(dir, `${unit}.d`, PG_DROP_IN));
      }
      const r = spawnSync('systemd-analyze', ['verify', '--man=no', ...copies], { encoding: 'utf8' });
      expect(r.error).toBeUndefined();
      expect(r.stderr + r.stdout).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ship environment file examples that set only variables dagu reads', () => {
    const required: Record<string, string[]> = {
      'coordinator.env.example': ['DAGU_COORDINATOR_TOKEN'],
      'worker.env.example': ['DAGU_COORDINATOR_TOKEN'],
      'postgres.env.example': ['DAGU_STORAGE_BACKEND', 'DAGU_POSTGRES_URL', 'DAGU_POSTGRES_PASSWORD_FILE'],
    };
    const examples = readdirSync(SYSTEMD).filter((f) => f.endsWith('.env.example'));
    expect(examples.sort()).toEqual(Object.keys(required).sort());
    for (const file of examples) {
      const text = readFileSync(path.join(SYSTEMD, file), 'utf8');
      const names = text
        .split('\n')
        .map((l) => /^#?(DAGU_[A-Z_]+)=/.exec(l.trim())?.[1])
        .filter((n): n is string => n !== undefined);
      for (const name of required[file]) expect([...environmentFile(text).keys()], file).toContain(name);
      for (const name of names) expect(KNOWN_ENV, `${file}: ${name}`).toContain(name);
    }
  });

  it('point the scheduler, server and coordinator at postgres.env through a drop-in that cannot be skipped', () => {
    const dropIn = parseUnit(readFileSync(path.join(SYSTEMD, PG_DROP_IN), 'utf8'));
    expect([...dropIn.keys()]).toEqual(['Service']);
    // No leading "-": a unit whose env file is missing fails to start instead of scheduling on local files.
    const [envFile] = dropIn.get('Service')!.get('EnvironmentFile')!;
    expect(envFile).toBe('/etc/dagu/postgres.env');
    expect(readFileSync(path.join(SYSTEMD, 'postgres.env.example'), 'utf8').split('\n')[0]).toContain(
      envFile,
    );
    // Workers never open the database, and their steps would inherit its settings.
    for (const unit of units.filter((u) => !PG_UNITS.includes(u)))
      expect(readFileSync(path.join(SYSTEMD, unit), 'utf8'), unit).not.toContain('postgres');
  });

  it('with postgres.env, give every unit that has the drop-in a PostgreSQL configuration dagu accepts', () => {
    const example = environmentFile(readFileSync(path.join(SYSTEMD, 'postgres.env.example'), 'utf8'));
    // The password is in a file of its own, never in the URL, so the env file can be readable by all.
    expect(new URL(example.get('DAGU_POSTGRES_URL')!).password).toBe('');
    const passwordFile = example.get('DAGU_POSTGRES_PASSWORD_FILE')!;
    expect(passwordFile).toMatch(/^\/etc\//);
    const dir = mkdtempSync(path.join(tmpdir(), 'dagu-unit-'));
    try {
      // The password file at a local path standing for /etc/dagu's.
      const localPassword = path.join(dir, path.basename(passwordFile));
      writeFileSync(localPassword, 'from-the-file\n');
      for (const unit of PG_UNITS) {
        const service = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Service')!;
        const env = {
          ...Object.fromEntries(unitEnvironment(service.get('Environment') ?? [])),
          ...Object.fromEntries(example),
          DAGU_HOME: dir,
          DAGU_POSTGRES_PASSWORD_FILE: localPassword,
        };
        const config = configFrom(env);
        expect(config.storage.backend, unit).toBe('postgres');
        expect(config.storage.postgres.url, unit).toBe(example.get('DAGU_POSTGRES_URL'));
        expect(config.storage.postgres.schema, unit).toBe('dagu');
        const settings = pgSettings(config);
        expect(settings.safeUrl, unit).toBe(example.get('DAGU_POSTGRES_URL'));
        // The client pg builds from these options is the one that sends the file's password.
        expect(new pg.Client(settings.connection).password, unit).toBe('from-the-file');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
