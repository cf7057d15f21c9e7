import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SparePool } from './spareRun';
import { minimalEnv, recordingLogger, tempDir, waitFor, type Logged } from './testSupport';

let dir: string;
let cleanup: () => void;
let pools: SparePool[];
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagu-spare-'));
  pools = [];
});
afterEach(() => {
  for (const p of pools) p.close();
  cleanup();
});

/**
 * A stand-in for `dagu __spare-run <own log> <socket> <token>`: connects back, says it waits, reads one
 * assignment and prints it; when the connection closes without one it removes its own log. FAKE_SPARE=crash-waiting throws before waiting, crash-running after the assignment.
 */
function fakeSpare(): string {
  const script = join(dir, 'fake-spare.cjs');
  writeFileSync(
    script,
    `const fs = require('node:fs');
const mode = process.env.FAKE_SPARE;
if (mode === 'crash-waiting') throw new Error('boom while waiting');
const [log, sock, token] = process.argv.slice(3);
let text = '';
const s = require('node:net').connect(sock, () => {
  s.write(token + '\\n');
  process.stdout.write('waiting ' + process.pid + '\\n');
});
s.setEncoding('utf8');
s.on('data', (d) => (text += d));
s.on('error', () => {});
s.on('close', () => {
  if (text.trim() === '') return fs.rmSync(log, { force: true });
  process.stdout.write('ran ' + JSON.stringify(JSON.parse(text).args) + '\\n');
  if (mode === 'crash-running') throw new Error('boom while running');
});
`,
  );
  return script;
}

function pool(opts: { mode?: string; builds?: Array<string | null> } = {}) {
  const logged: Logged[] = [];
  const builds = opts.builds ?? ['b1'];
  let reads = 0;
  const p = new SparePool({
    executable: fakeSpare(),
    env: { ...minimalEnv(), FAKE_SPARE: opts.mode ?? '' },
    logDir: join(dir, 'spares'),
    currentBuild: async () => builds[Math.min(reads++, builds.length - 1)],
    logger: recordingLogger(logged),
  });
  pools.push(p);
  return { pool: p, logged };
}

const spareLogs = () => (existsSync(join(dir, 'spares')) ? readdirSync(join(dir, 'spares')) : []);

/** Starts a spare and waits until it says it is waiting; returns its pid. */
async function filled(p: SparePool): Promise<number> {
  await p.fill();
  let pid = 0;
  await waitFor(() => {
    const [name] = spareLogs();
    const m = name ? /^waiting (\d+)$/m.exec(readFileSync(join(dir, 'spares', name), 'utf8')) : null;
    pid = m ? Number(m[1]) : 0;
    return pid > 0 && p.waitingPid() === pid;
  });
  return pid;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const processLog = () => join(dir, 'process.log');
const allowed = () => true;

describe('SparePool', () => {
  it('gives a run to the waiting spare, whose whole output goes to the run’s process log', async () => {
    const { pool: p, logged } = pool({ mode: 'crash-running' });
    const pid = await filled(p);
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toEqual({ pid });
    await waitFor(() => !alive(pid));
    const log = readFileSync(processLog(), 'utf8');
    // What it wrote while waiting, what it wrote as the run, and the trace Node itself printed when it died.
    expect(log).toMatch(/^waiting \d+\nran \["start","etl"\]\n/);
    expect(log).toContain('Error: boom while running');
    expect(spareLogs()).toEqual([]);
    // A spare that became a run is the run's business: the pool reports nothing.
    expect(logged).toEqual([]);
  });

  it('lets a spare go when the build on disk changed since it started, and starts one of the new build', async () => {
    const { pool: p, logged } = pool({ builds: ['b1', 'b2'] });
    const pid = await filled(p);
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toBeNull();
    await waitFor(() => !alive(pid));
    expect(existsSync(processLog())).toBe(false);
    expect(logged).toEqual([
      expect.objectContaining({ level: 'info', fields: { pid, build: 'b1', build_on_disk: 'b2' } }),
    ]);
    await waitFor(() => spareLogs().length === 0);
    const next = await filled(p);
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toEqual({ pid: next });
    await waitFor(() => readFileSync(processLog(), 'utf8').includes('ran'));
  });

  it('reports a spare that dies while it waits, with its output, in the scheduler’s log and starts no more', async () => {
    const { pool: p, logged } = pool({ mode: 'crash-waiting' });
    await p.fill();
    await waitFor(() => logged.length > 0);
    expect(logged[0]).toMatchObject({
      level: 'error',
      msg: expect.stringContaining('exited before it was given a run'),
      fields: {
        reason: 'it exited before it connected',
        output: expect.stringContaining('Error: boom while waiting'),
      },
    });
    // The file stays for the operator, named in the log line.
    expect(existsSync(logged[0].fields.log as string)).toBe(true);
    await p.fill();
    expect(spareLogs()).toHaveLength(1);
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toBeNull();
  });

  it('reports a spare that dies while it is being given a run with its output, read where it was moved', async () => {
    const logged: Logged[] = [];
    let reads = 0;
    let pid = 0;
    const p = new SparePool({
      executable: fakeSpare(),
      env: minimalEnv(),
      logDir: join(dir, 'spares'),
      // The second read is the claim's: the spare dies right then, before its output is moved to the run's log.
      currentBuild: async () => {
        if (reads++ === 1) {
          process.kill(pid, 'SIGKILL');
          await waitFor(() => logged.length > 0 || !alive(pid));
        }
        return 'b1';
      },
      logger: recordingLogger(logged),
    });
    pools.push(p);
    pid = await filled(p);
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toBeNull();
    await waitFor(() => logged.length > 0);
    expect(logged[0]).toMatchObject({
      level: 'error',
      fields: { pid, reason: 'its connection closed', log: processLog(), output: `waiting ${pid}\n` },
    });
  });

  it('starts nothing when the fence closed while the spare was being given the run', async () => {
    const { pool: p } = pool();
    const pid = await filled(p);
    expect(await p.assign(['start', 'etl'], processLog(), () => false)).toEqual({
      pid: undefined,
      fenced: true,
    });
    await waitFor(() => !alive(pid));
    expect(readFileSync(processLog(), 'utf8')).not.toContain('ran');
  });

  it('leaves a run that already has a process log to be started the usual way', async () => {
    const { pool: p } = pool();
    const pid = await filled(p);
    writeFileSync(processLog(), 'earlier output\n');
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toBeNull();
    await waitFor(() => !alive(pid));
    expect(readFileSync(processLog(), 'utf8')).toBe('earlier output\n');
  });

  it('starts no spare when the build on disk cannot be told', async () => {
    const { pool: p, logged } = pool({ builds: [null] });
    await p.fill();
    expect(spareLogs()).toEqual([]);
    expect(logged).toEqual([expect.objectContaining({ level: 'warn' })]);
    expect(await p.assign(['start', 'etl'], processLog(), allowed)).toBeNull();
  });

  it('lets the waiting spare go when closed, which removes its output file', async () => {
    const { pool: p, logged } = pool();
    const pid = await filled(p);
    p.close();
    await waitFor(() => !alive(pid));
    await waitFor(() => spareLogs().length === 0);
    await p.fill();
    expect(spareLogs()).toEqual([]);
    expect(logged).toEqual([]);
  });
});
