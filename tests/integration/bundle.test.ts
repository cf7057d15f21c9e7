// The paths only the built CLI takes, run through the real bin/dagu: the launcher's code caches and parts,
// the ASCII bundles it reads as latin1, the DAG cache (keyed by the build ID compiled into the bundle), the
// pre-started run process, and no deprecated Node API on the way. Tests that change files of the build work on
// a private copy of it (bin/ and dist/), never on the tree others use.

import { spawn } from 'node:child_process';
import net from 'node:net';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DAGU,
  ROOT,
  alive,
  sparePids,
  dagu,
  eventually,
  stopWith,
  tempHome,
  watchOutput,
  type Result,
  type Service,
  type TempHome,
} from './harness';
import { CLI_BUNDLES } from '../../scripts/cliBundles.mjs';

const DIST = path.join(ROOT, 'dist');
/** The bundles and the parts scripts/build-cli.mjs builds. */
const BUNDLES = CLI_BUNDLES;
const ONE_STEP = 'steps:\n  - name: s\n    command: "true"\n';

let h: TempHome;
let cleanups: Array<() => void | Promise<unknown>>;
beforeEach(() => {
  h = tempHome();
  cleanups = [];
});
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  h.cleanup();
});

/**
 * A private copy of the built CLI (bin/ and dist/, node_modules linked); returns its bin/dagu. A build of the
 * tree swaps dist/ at its end: a copy that meets the moment without dist/ is tried again.
 */
async function copyOfBuild(only?: string[]): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'dagu-build-copy-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'bin'));
  mkdirSync(path.join(root, 'dist'));
  for (const name of ['dagu', 'package.json'])
    copyFileSync(path.join(ROOT, 'bin', name), path.join(root, 'bin', name));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  for (let attempt = 1; ; attempt++) {
    try {
      for (const name of only ?? readdirSync(DIST).filter((n) => /\.(cjs|cache)$/.test(n)))
        copyFileSync(path.join(DIST, name), path.join(root, 'dist', name));
      return path.join(root, 'bin', 'dagu');
    } catch (err) {
      if (attempt === 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Runs `<bin> <args>` to completion. */
function daguAt(bin: string, args: string[], env = h.env): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A scheduler of `bin`, stopped (and every process of the home killed) when the test ends. */
function schedulerAt(bin: string, env: NodeJS.ProcessEnv): Service {
  const child = spawn(process.execPath, [bin, 'scheduler'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    stopWith(
      (s) => child.kill(s),
      () => child.exitCode === null && child.signalCode === null,
      exited,
      signal,
    );
  cleanups.push(() => stop('SIGKILL'));
  return { child, ...watchOutput(child), stop };
}

async function status(runId: string) {
  const r = await dagu(['status', '--json', runId], h.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { status: string; pid: number | null; steps: Array<{ stdout: string }> };
}

const runIdOf = (stdout: string) => /^\S+ (\S+) \(attempt/m.exec(stdout)![1];

async function stepLog(r: Result): Promise<string> {
  const s = await status(runIdOf(r.stdout));
  return readFileSync(path.join(h.home, 'logs', s.steps[0].stdout), 'utf8');
}

/** The build ID on the first line of a main bundle. */
function bannerOf(cli: string): string {
  return /^\/\/ dagu build (\S+)\n/.exec(readFileSync(cli, 'latin1'))![1];
}

/**
 * A preload (a Node option, so the code caches still fit) that records the bundles bin/dagu opens and the
 * built-in modules loaded: `env` adds it to a command, `loads()` reads what the last such command recorded.
 */
function recordLoads() {
  const hook = path.join(h.home, 'record-loads.cjs');
  const out = path.join(h.home, 'loads.json');
  writeFileSync(
    hook,
    `const fs = require('node:fs');
const open = fs.openSync;
const parts = [];
fs.openSync = function (file, ...rest) {
  if (typeof file === 'string' && /[\\\\/]dist[\\\\/][a-z]+\\.cjs$/.test(file)) parts.push(file.replace(/.*[\\\\/]/, ''));
  return open.call(this, file, ...rest);
};
process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ parts, modules: process.moduleLoadList })));
`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${hook}` },
    loads: () => JSON.parse(readFileSync(out, 'utf8')) as { parts: string[]; modules: string[] },
  };
}

describe('the bundles bin/dagu reads', () => {
  it('are the ones the build makes: bin/dagu names every part and every bundle of its own', () => {
    const launcher = readFileSync(path.join(ROOT, 'bin', 'dagu'), 'utf8');
    const listed = (name: string) => {
      const m = new RegExp(`^const ${name} = ([^;]+);$`, 'm').exec(launcher);
      return m ? m[1] : '';
    };
    const parts = [...listed('PARTS').matchAll(/'([a-z]+)'/g)].map((m) => m[1]);
    const own = [...listed('OWN_BUNDLES').matchAll(/: '([a-z]+)'/g)].map((m) => m[1]);
    expect(['cli', ...own, ...parts].sort()).toEqual([...CLI_BUNDLES].sort());
    for (const name of CLI_BUNDLES) expect(existsSync(path.join(DIST, `${name}.cjs`)), name).toBe(true);
  });

  it('are pure ASCII, so reading them as latin1 gives the text; non-ASCII text passes through a run intact', async () => {
    // bin/dagu runs each bundle as a vm script, which has no loader for import(): a dynamic import left in a
    // bundle (one of a Node built-in, say) would fail only when that code path runs.
    for (const name of BUNDLES) {
      expect(readFileSync(path.join(DIST, `${name}.cjs`), 'latin1'), name).not.toMatch(/\bimport\(\s*["'`]/);
    }
    for (const name of BUNDLES) {
      const bytes = readFileSync(path.join(DIST, `${name}.cjs`));
      expect(
        bytes.findIndex((b) => b > 0x7f),
        name,
      ).toBe(-1);
    }
    h.writeDag(
      'utf',
      'description: "Grüße ✓"\nparams: "WHO=x"\nsteps:\n  - name: s\n    command: echo "é ✓ $WHO"\n',
    );
    const r = await dagu(['start', 'utf', '--', 'WHO=Zoë'], h.env);
    expect(r.code, r.stderr).toBe(0);
    expect(await stepLog(r)).toBe('é ✓ Zoë\n');
  });

  it('load their parts on demand: cron for a schedule, pino for a log line, yaml for config.yaml', async () => {
    writeFileSync(path.join(h.home, 'config.yaml'), 'run:\n  kill_grace: 2s\n');
    h.writeDag('cron', 'schedule: "*/5 * * * *"\nsteps:\n  - name: s\n    command: "true"\n');
    const r = await dagu(['start', 'cron'], h.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"msg":"Run started"');
  });

  it('a quiet run of a DAG from the DAG cache loads no part, no node:crypto and no node:fs/promises', async () => {
    // What a run process loads is most of what it costs: each part or built-in module loaded for nothing is
    // milliseconds of CPU at every run. A preload (a Node option, so the code caches still fit) records the
    // bundles bin/dagu opens and the built-ins loaded.
    const recorder = recordLoads();
    h.writeDag('one', ONE_STEP);
    const env = { ...h.env, DAGU_LOG_LEVEL: 'warn' };
    expect((await dagu(['start', '-q', 'one'], env)).code).toBe(0); // parses the DAG and caches it
    const r = await dagu(['start', '-q', 'one'], { ...env, ...recorder.env });
    expect(r.code, r.stderr).toBe(0);
    const loads = recorder.loads();
    expect(loads.parts).toEqual(['cli.cjs']);
    expect(loads.modules).not.toContain('NativeModule crypto');
    expect(loads.modules).not.toContain('NativeModule fs/promises');
  });

  it('a build missing a part stops at once with one clear line and exit 2, before creating a run', async () => {
    const bin = await copyOfBuild(['cli.cjs', 'cron.cjs']);
    h.writeDag('one', ONE_STEP);
    const r = await daguAt(bin, ['start', 'one']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "dagu: the CLI's build is incomplete (dist/pino.cjs: ENOENT); run `npm run build` again\n",
    );
    expect(existsSync(path.join(h.home, 'data', 'runs'))).toBe(false);
  });

  it('a part that is there but cannot be read fails the command that needs it with the real error', async () => {
    // Not an incomplete build: a service out of file descriptors (EMFILE) reports the read that failed and
    // goes on, rather than exiting with advice to rebuild. A directory in the part's place fails its read.
    const bin = await copyOfBuild();
    const part = path.join(path.dirname(bin), '..', 'dist', 'jsyaml.cjs');
    rmSync(part);
    mkdirSync(part);
    h.writeDag('one', ONE_STEP);
    const r = await daguAt(bin, ['validate', 'one']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^dagu: cannot load dist\/jsyaml\.cjs: EISDIR/);
    expect(r.stderr).not.toMatch(/incomplete/);
  });

  it('`dagu validate` runs from its own bundle and never reads the main one', async () => {
    // The main bundle is three times the size of validate's: reading, compiling and setting it up was a
    // fifth of a `dagu validate`. Its answers and its exit codes are the main bundle's (one definition of the
    // command line, server/cli/program.ts).
    const recorder = recordLoads();
    h.writeDag('one', ONE_STEP);
    h.writeDag('broken', 'steps: 5\n');
    const env = { ...h.env, ...recorder.env };
    const ok = await dagu(['--home', h.home, 'validate', '-q', 'one'], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(`ok  one (${path.join(h.home, 'dags', 'one.yaml')})\n`);
    expect(recorder.loads().parts).toEqual(['validate.cjs', 'yaml.cjs', 'jsyaml.cjs']);
    const bad = await dagu(['validate', 'broken', 'missing'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('broken.yaml:1:');
    expect(bad.stderr).toContain('dagu: DAG "missing" not found in');
    expect(recorder.loads().parts[0]).toBe('validate.cjs');
    // A usage error and --help end as they do in the main bundle.
    const usage = await dagu(['validate', '--no-such-option'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("error: unknown option '--no-such-option'");
    const help = await dagu(['validate', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: dagu validate [options] [dags...]');
    expect(help.stdout).toContain('-q, --quiet');
    expect(recorder.loads().parts).toEqual(['validate.cjs']);
  });

  it('`dagu validate` exits only once a full pipe has taken all of its output', async () => {
    // It ends with process.exit, which would drop output a stream still holds. Its writes are synchronous;
    // one that meets a full non-blocking pipe hands the rest to Node's stream (stdio.ts). Here stderr is a
    // socket that nobody reads for a while, made non-blocking as Node makes a stream's descriptor (a
    // preload uses process.stderr first), and the command prints 4,000 error lines, more than the socket
    // buffers: all of them must arrive, in order.
    const steps = (n: number) =>
      Array.from({ length: n }, (_, i) => `  - name: s${i}\n    run: "true"\n    no_such_key: 1\n`).join('');
    h.writeDag('bad1', `steps:\n${steps(2000)}`);
    h.writeDag('bad2', `steps:\n${steps(2000)}`);
    const socketPath = path.join(h.home, 'stderr.sock');
    let received = '';
    let reader: net.Socket | null = null;
    const server = net.createServer((socket) => {
      reader = socket;
      socket.pause();
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (received += d));
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const writer = net.connect(socketPath);
    await new Promise<void>((resolve) => writer.once('connect', () => resolve()));
    const touch = path.join(h.home, 'touch-stderr.cjs');
    writeFileSync(touch, 'process.stderr;\n');
    const child = spawn(process.execPath, [DAGU, 'validate', 'bad1', 'bad2'], {
      env: { ...h.env, NODE_OPTIONS: `--require ${touch}` },
      stdio: ['ignore', 'ignore', writer],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reader).not.toBeNull();
    reader!.resume();
    expect(await exited).toBe(2);
    const ended = new Promise((resolve) => reader!.once('end', resolve));
    writer.destroy();
    await ended;
    const lines = received.split('\n').filter((l) => l.includes('no_such_key'));
    expect(lines.length).toBe(4000);
    // Each DAG's errors in the order of its steps: the key of steps[i] is at line 3i + 4 of its file.
    const expected = ['bad1', 'bad2'].flatMap((dag) =>
      Array.from({ length: 2000 }, (_, i) => `${dag}.yaml:${3 * i + 4}:`),
    );
    expect(lines.map((l) => /(bad\d\.yaml:\d+:)/.exec(l)?.[1])).toEqual(expected);
  });

  it("a build without validate's bundle is incomplete, for `dagu validate` as for every command", async () => {
    const bin = await copyOfBuild();
    rmSync(path.join(path.dirname(bin), '..', 'dist', 'validate.cjs'));
    h.writeDag('one', ONE_STEP);
    for (const args of [
      ['validate', 'one'],
      ['start', 'one'],
    ]) {
      const r = await daguAt(bin, args);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr).toBe(
        "dagu: the CLI's build is incomplete (dist/validate.cjs: ENOENT); run `npm run build` again\n",
      );
    }
    expect(existsSync(path.join(h.home, 'data', 'runs'))).toBe(false);
  });
});

describe('the code caches', () => {
  it('a missing main cache is made by the next `dagu start`, not by another command', async () => {
    const bin = await copyOfBuild();
    const cache = path.join(path.dirname(bin), '..', 'dist', 'cli.cache');
    rmSync(cache);
    h.writeDag('one', ONE_STEP);
    expect((await daguAt(bin, ['validate', 'one'])).code).toBe(0);
    expect(existsSync(cache)).toBe(false);
    const r = await daguAt(bin, ['start', '-q', 'one']);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(cache).size).toBeGreaterThan(10_000);
  });

  it('a cache that does not fit (another Node, another build) is rejected, replaced, and the run works', async () => {
    const bin = await copyOfBuild();
    const dist = path.join(path.dirname(bin), '..', 'dist');
    const junk = Buffer.from('not a V8 code cache');
    for (const name of ['cli', 'yaml', 'cron']) writeFileSync(path.join(dist, `${name}.cache`), junk);
    h.writeDag('cron', 'schedule: "*/5 * * * *"\nsteps:\n  - name: s\n    command: echo ran\n');
    const r = await daguAt(bin, ['start', 'cron']);
    expect(r.code, r.stderr).toBe(0);
    expect(await stepLog(r)).toBe('ran\n');
    for (const name of ['cli', 'yaml', 'cron']) {
      expect(readFileSync(path.join(dist, `${name}.cache`)).equals(junk), name).toBe(false);
    }
  });

  it('the stack traces of a run name the installed bundle, not the directory the build warmed it in', async () => {
    // V8 keeps the file name a script was compiled under in its code cache; a trace taken inside the bundle
    // (here: where the run writes its summary) shows the name the main cache was made with.
    const hook = path.join(h.home, 'record-stack.cjs');
    const out = path.join(h.home, 'stack.txt');
    writeFileSync(
      hook,
      `const fs = require('node:fs');
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  if (!fs.existsSync(${JSON.stringify(out)})) fs.writeFileSync(${JSON.stringify(out)}, new Error('here').stack);
  return write(...args);
};
`,
    );
    h.writeDag('one', ONE_STEP);
    const r = await dagu(['start', 'one'], { ...h.env, NODE_OPTIONS: `--require ${hook}` });
    expect(r.code, r.stderr).toBe(0);
    const frames = readFileSync(out, 'utf8')
      .split('\n')
      .filter((line) => line.includes('cli.cjs'));
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toContain(path.join(DIST, 'cli.cjs'));
  });

  it('a cache that cannot be written leaves the run alone', async () => {
    const bin = await copyOfBuild();
    const cache = path.join(path.dirname(bin), '..', 'dist', 'cli.cache');
    // A directory where the cache should be: it can be neither read nor replaced (even by root).
    rmSync(cache);
    mkdirSync(path.join(cache, 'in-the-way'), { recursive: true });
    h.writeDag('one', 'steps:\n  - name: s\n    command: echo fine\n');
    const r = await daguAt(bin, ['start', 'one']);
    expect(r.code, r.stderr).toBe(0);
    expect(await stepLog(r)).toBe('fine\n');
    expect(statSync(cache).isDirectory()).toBe(true);
  });

  it('DAGU_CODE_CACHE=write makes any command write the caches it loaded (the build warms them so)', async () => {
    const bin = await copyOfBuild();
    const dist = path.join(path.dirname(bin), '..', 'dist');
    for (const name of ['cli.cache', 'validate.cache', 'yaml.cache'])
      rmSync(path.join(dist, name), { force: true });
    h.writeDag('one', ONE_STEP);
    const r = await daguAt(bin, ['validate', 'one'], { ...h.env, DAGU_CODE_CACHE: 'write' });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(dist, 'validate.cache'))).toBe(true);
    expect(existsSync(path.join(dist, 'yaml.cache'))).toBe(true);
    // validate writes its own main cache, never start's.
    expect(existsSync(path.join(dist, 'cli.cache'))).toBe(false);
  });

  it('every other command keeps a cache of its own, made when it first succeeds', async () => {
    const bin = await copyOfBuild();
    const dist = path.join(path.dirname(bin), '..', 'dist');
    // `dry` has a cache of the main bundle; `validate` has its own bundle, and that bundle's cache.
    const commandCaches = () => readdirSync(dist).filter((n) => /^(cli\..+|validate)\.cache$/.test(n));
    // Those of the tree's own commands so far (this copy is of a tree that ran some).
    for (const name of commandCaches()) rmSync(path.join(dist, name));
    const startCache = readFileSync(path.join(dist, 'cli.cache'));
    h.writeDag('one', ONE_STEP);
    h.writeDag('broken', 'steps: 5\n');
    // A failing command (here an invalid DAG, or a mistyped command word) leaves no cache behind.
    expect((await daguAt(bin, ['dry', 'broken'])).code).toBe(2);
    expect((await daguAt(bin, ['validate', 'broken'])).code).toBe(2);
    expect((await daguAt(bin, ['valdate', 'one'])).code).toBe(2);
    expect(commandCaches()).toEqual([]);
    for (const [command, cache] of [
      ['dry', 'cli.dry.cache'],
      ['validate', 'validate.cache'],
    ]) {
      const first = await daguAt(bin, [command, 'one']);
      expect(first.code, first.stderr).toBe(0);
      const own = path.join(dist, cache);
      expect(statSync(own).size, cache).toBeGreaterThan(10_000);
      // Accepted from now on: the next run neither rejects nor rewrites it, and start's cache is untouched.
      const made = statSync(own).mtimeMs;
      const second = await daguAt(bin, [command, 'one']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(statSync(own).mtimeMs, cache).toBe(made);
    }
    expect(commandCaches().sort()).toEqual(['cli.dry.cache', 'validate.cache']);
    expect(readFileSync(path.join(dist, 'cli.cache')).equals(startCache)).toBe(true);
  });

  it('a run on PostgreSQL keeps a main cache of its own and leaves the files’ run cache alone', async () => {
    const bin = await copyOfBuild();
    const dist = path.join(path.dirname(bin), '..', 'dist');
    const pgCache = path.join(dist, 'cli.postgres.cache');
    rmSync(pgCache, { force: true });
    const startCache = readFileSync(path.join(dist, 'cli.cache'));
    h.writeDag('one', ONE_STEP);
    // No server is needed to see which cache the run loads and writes: it stops at the connection.
    const pgEnv = {
      ...h.env,
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: 'postgresql://127.0.0.1:1/x',
    };
    const r = await daguAt(bin, ['start', 'one'], pgEnv);
    expect(r.code).toBe(2);
    expect(statSync(pgCache).size).toBeGreaterThan(10_000);
    expect(readFileSync(path.join(dist, 'cli.cache')).equals(startCache)).toBe(true);
    // On files the run loads the files' cache, accepted as it is.
    const onFiles = await daguAt(bin, ['start', '-q', 'one']);
    expect(onFiles.code, onFiles.stderr).toBe(0);
    expect(readFileSync(path.join(dist, 'cli.cache')).equals(startCache)).toBe(true);
  });
});

describe('the DAG cache (keyed by the build ID compiled into the bundle)', () => {
  const entries = () => readdirSync(path.join(h.home, 'data', 'cache', 'dags'));
  const entryFile = () => path.join(h.home, 'data', 'cache', 'dags', entries()[0]);
  const editEntry = (edit: (e: Record<string, unknown> & { dag: { steps: unknown[] } }) => void) => {
    const e = JSON.parse(readFileSync(entryFile(), 'utf8'));
    edit(e);
    writeFileSync(entryFile(), JSON.stringify(e));
  };

  it('reuses the parse of an unchanged DAG file and never a stale one', async () => {
    const file = h.writeDag('cached', 'steps:\n  - name: s\n    command: echo first\n');
    const first = await dagu(['start', 'cached'], h.env);
    expect(first.code, first.stderr).toBe(0);
    expect(await stepLog(first)).toBe('first\n');
    expect(entries()).toHaveLength(1);

    writeFileSync(file, 'steps:\n  - name: s\n    command: echo second\n');
    const second = await dagu(['start', 'cached'], h.env);
    expect(second.code, second.stderr).toBe(0);
    expect(await stepLog(second)).toBe('second\n');

    writeFileSync(file, 'steps:\n  - name: s\n    comand: echo third\n');
    const third = await dagu(['start', 'cached'], h.env);
    expect(third.code).toBe(2);
    expect(third.stderr).toContain(`${file}:2:5: steps[0]: a step needs run, an action or a call`);
  });

  it('serves only the build that wrote an entry', async () => {
    h.writeDag('cached', 'steps:\n  - name: s\n    command: echo from-file\n');
    expect((await dagu(['start', '-q', 'cached'], h.env)).code).toBe(0);
    const entry = JSON.parse(readFileSync(entryFile(), 'utf8')) as { build: string };
    expect(entry.build).toBe(bannerOf(path.join(DIST, 'cli.cjs')));
    // An entry is trusted as it is: a changed command shows that it was used, not the file.
    editEntry((e) => ((e.dag.steps[0] as { command: string[] }).command = ['echo from-cache']));
    const same = await dagu(['start', 'cached'], h.env);
    expect(await stepLog(same)).toBe('from-cache\n');
    editEntry((e) => (e.build = 'another-build'));
    const other = await dagu(['start', 'cached'], h.env);
    expect(await stepLog(other)).toBe('from-file\n');
    expect(JSON.parse(readFileSync(entryFile(), 'utf8')).build).toBe(entry.build);
  });
});

describe('the run path', () => {
  it('uses no deprecated or internal Node API: a step, a sub-DAG and a schedule run without them', async () => {
    h.writeDag('child', 'steps:\n  - name: c\n    command: echo child\n');
    h.writeDag(
      'parent',
      'schedule: "0 3 * * *"\nsteps:\n  - name: s\n    command: echo parent\n  - name: call\n    call: child\n',
    );
    // process.binding (deprecated, and gone in some future Node) is recorded and refused in every process of
    // the run, so that neither a caught error nor a fallback can hide a use of it.
    const probe = path.join(h.home, 'no-binding.cjs');
    const calls = path.join(h.home, 'binding-calls');
    writeFileSync(
      probe,
      `process.binding = (name) => {
        require('node:fs').appendFileSync(${JSON.stringify(calls)}, name + '\\n');
        throw new Error('process.binding was called');
      };\n`,
    );
    const withProbe = await dagu(['start', 'parent'], { ...h.env, NODE_OPTIONS: `--require ${probe}` });
    expect(existsSync(calls) ? readFileSync(calls, 'utf8') : '').toBe('');
    expect(withProbe.code, withProbe.stderr).toBe(0);
    expect(withProbe.stdout).toMatch(/succeeded\s+call/);
    // Any other deprecated API (those only --pending-deprecation reports included) would end the run.
    const strict = await dagu(['start', 'parent'], {
      ...h.env,
      NODE_OPTIONS: '--pending-deprecation --throw-deprecation',
    });
    expect(strict.code, strict.stderr).toBe(0);
    expect(strict.stderr).not.toMatch(/DeprecationWarning|DEP0/);
  });
});

describe('a run lane', () => {
  it('is let go when a new build replaces the one it loaded; the queue goes on', async () => {
    const bin = await copyOfBuild();
    const cli = path.join(path.dirname(bin), '..', 'dist', 'cli.cjs');
    writeFileSync(
      path.join(h.home, 'config.yaml'),
      'queues:\n  config:\n    - name: lq\n      max_concurrency: 1\n',
    );
    h.writeDag('q', 'queue: lq\nsteps:\n  - name: s\n    command: sleep 0.3\n');
    const before = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];
    for (const id of before) expect((await daguAt(bin, ['enqueue', '--run-id', id, 'q'])).code).toBe(0);
    const s = schedulerAt(bin, { ...h.env, DAGU_RUN_PRESTART: 'false' });
    const lane = await eventually(async () => {
      for (const id of before) {
        const pid = (await status(id)).pid;
        // A run of a process of its own has ended, and its process with it.
        const cmdline = pid && alive(pid) ? readFileSync(`/proc/${pid}/cmdline`, 'latin1') : '';
        if (cmdline.includes('__run-lane')) return pid;
      }
      return null;
    }, 20_000).catch(() => null);
    expect(lane, s.output()).not.toBeNull();
    // What `npm run build` does, as far as a scheduler and a lane can tell: a new build ID in dist/cli.cjs.
    const old = bannerOf(cli);
    const fresh = 'x'.repeat(old.length);
    writeFileSync(`${cli}.tmp`, readFileSync(cli, 'latin1').replaceAll(old, fresh), 'latin1');
    renameSync(`${cli}.tmp`, cli);
    const after = ['a0', 'a1', 'a2'];
    for (const id of after) expect((await daguAt(bin, ['enqueue', '--run-id', id, 'q'])).code).toBe(0);
    await s.waitFor(/Let a run lane go: the build on disk changed/, 20_000);
    expect(s.output()).toContain(`"build":"${old}","build_on_disk":"${fresh}"`);
    for (const id of after) {
      const r = await eventually(async () => {
        const st = await status(id);
        return st.status === 'succeeded' ? st : null;
      }, 30_000);
      expect(r.pid).not.toBe(lane);
    }
    await eventually(() => !alive(lane!), 10_000);
    expect(s.output()).not.toMatch(/"level":"error"/);
  });
});

describe('the pre-started run process', () => {
  const env = () => ({ ...h.env, DAGU_RUN_PRESTART: 'true' });

  async function runsOf(dag: string) {
    const { FileRunStore } = await import('../../server/store/fileRunStore');
    const store = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
    const page = await store.listRuns({ dag, limit: 500 });
    const out = [];
    for (const item of page.items) {
      const r = await store.readStatus(item.run_id);
      if (r.kind === 'ok') out.push(r.status);
    }
    return out;
  }

  it('runs a slot of the build on disk, with its output in the run’s process log, and is replaced', async () => {
    h.writeDag('tick', 'schedule: "*/2 * * * * *"\nsteps:\n  - name: s\n    command: echo "tick"\n');
    const s = schedulerAt(DAGU, env());
    const spare = await eventually(() => sparePids(s.child.pid!).at(0), 15_000);
    const run = await eventually(
      async () => (await runsOf('tick')).find((r) => r.pid === spare && r.status === 'succeeded'),
      15_000,
    );
    expect(existsSync(path.join(h.home, 'logs', 'tick', run.run_id, '1', 'process.log'))).toBe(true);
    await eventually(() => sparePids(s.child.pid!).some((pid) => pid !== spare), 15_000);
    expect(s.output()).not.toMatch(/"level":"(warn|error)"/);
  });

  it('is let go when a new build replaces the one it loaded; the run starts on the new build', async () => {
    const bin = await copyOfBuild();
    const cli = path.join(path.dirname(bin), '..', 'dist', 'cli.cjs');
    // Queued runs, started when the test says so: the build changes while the spare surely waits.
    h.writeDag('q', ONE_STEP);
    const s = schedulerAt(bin, env());
    const stale = await eventually(() => sparePids(s.child.pid!).at(0), 15_000);
    // What `npm run build` does to the tree, as far as a scheduler can tell: a new dist/cli.cjs.
    const old = bannerOf(cli);
    const fresh = 'x'.repeat(old.length);
    writeFileSync(`${cli}.tmp`, readFileSync(cli, 'latin1').replace(old, fresh), 'latin1');
    renameSync(`${cli}.tmp`, cli);
    expect((await daguAt(bin, ['enqueue', '--run-id', 'after-build', 'q'])).code).toBe(0);
    await s.waitFor(/Let a pre-started run process go: the build on disk changed/, 15_000);
    expect(s.output()).toContain(`"build":"${old}","build_on_disk":"${fresh}"`);
    const first = await eventually(async () => {
      const r = (await runsOf('q')).find((x) => x.run_id === 'after-build');
      return r?.status === 'succeeded' ? r : null;
    }, 15_000);
    expect(first.pid).not.toBe(stale);
    await eventually(() => !alive(stale), 5_000);
    // The next spare loaded the new build and is used.
    const next = await eventually(() => sparePids(s.child.pid!).find((pid) => pid !== stale), 15_000);
    expect((await daguAt(bin, ['enqueue', '--run-id', 'next', 'q'])).code).toBe(0);
    const second = await eventually(async () => {
      const r = (await runsOf('q')).find((x) => x.run_id === 'next');
      return r?.status === 'succeeded' ? r : null;
    }, 15_000);
    expect(second.pid).toBe(next);
  });

  it('that dies while it waits is reported in the scheduler’s log with its trace; slots still run', async () => {
    const bin = await copyOfBuild();
    // An executable whose spares die as they start; every other command is the real one.
    const crashing = path.join(path.dirname(bin), 'crashing-spare');
    writeFileSync(
      crashing,
      "if (process.argv[2] === '__spare-run') throw new Error('spare died while loading');\nrequire('./dagu');\n",
    );
    h.writeDag('tick', 'schedule: "*/2 * * * * *"\nsteps:\n  - name: s\n    command: "true"\n');
    const s = schedulerAt(bin, { ...env(), DAGU_EXECUTABLE: crashing });
    // The whole line: output arrives in chunks, and the message may come before the end of its line.
    await s.waitFor(/exited before it was given a run[^\n]*\n/, 15_000);
    const line = s
      .output()
      .split('\n')
      .find((l) => l.includes('exited before it was given a run'))!;
    const logged = JSON.parse(line) as { level: string; reason: string; output: string; log: string };
    expect(logged).toMatchObject({ level: 'error', reason: 'it exited before it connected' });
    expect(logged.output).toContain('Error: spare died while loading');
    expect(readFileSync(logged.log, 'utf8')).toContain('Error: spare died while loading');
    await eventually(async () => (await runsOf('tick')).find((r) => r.status === 'succeeded'), 15_000);
    expect(sparePids(s.child.pid!)).toEqual([]);
  });
});
