// Starts the console under test: the real `bin/dagu server` on a free port, with a temporary DAGU_HOME that
// holds the DAG `hello`. Returns the teardown that stops the server and removes the directory.
// DAGU_E2E_SERVER=next-start serves the same build through `next start` instead (for working on the
// console before the CLI is built).

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HELLO_DAG, HELLO_DAG_NAME } from './fixtures';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export default async function globalSetup(): Promise<() => Promise<void>> {
  const mode = process.env.DAGU_E2E_SERVER ?? 'dagu';
  requireBuilt(mode);

  const home = await mkdtemp(path.join(tmpdir(), 'dagu-e2e-'));
  await mkdir(path.join(home, 'dags'), { recursive: true });
  await writeFile(path.join(home, 'dags', `${HELLO_DAG_NAME}.yaml`), HELLO_DAG);

  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DAGU_HOME: home,
    DAGU_EXECUTABLE: path.join(root, 'bin', 'dagu'),
    NEXT_TELEMETRY_DISABLED: '1',
    NO_COLOR: '1',
  };
  delete env.FORCE_COLOR;
  const args =
    mode === 'next-start'
      ? [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)]
      : [path.join(root, 'bin', 'dagu'), 'server', '--host', '127.0.0.1', '--port', String(port)];
  await mkdir(path.join(root, 'test-results'), { recursive: true });
  const serverLog = path.join(root, 'test-results', 'e2e-server.log');
  const log = createWriteStream(serverLog);
  const server = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout?.pipe(log);
  server.stderr?.pipe(log);

  const baseURL = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(server, `${baseURL}/api/v1/health`, serverLog);
  } catch (err) {
    await stop(server);
    await rm(home, { recursive: true, force: true });
    throw err;
  }
  process.env.DAGU_E2E_BASE_URL = baseURL;
  process.env.DAGU_E2E_HOME = home;

  return async () => {
    await stop(server);
    log.end();
    await rm(home, { recursive: true, force: true });
  };
}

function requireBuilt(mode: string): void {
  const needed = mode === 'next-start' ? ['.next/BUILD_ID'] : ['dist/cli.cjs', '.next/BUILD_ID'];
  const missing = needed.filter((p) => !existsSync(path.join(root, p)));
  if (missing.length > 0) {
    throw new Error(
      `e2e: ${missing.join(' and ')} missing; run \`npm run build\` before \`npm run test:e2e\``,
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Polls the health endpoint until it answers 200; fails at once if the server exits. */
async function waitUntilReady(server: ChildProcess, url: string, serverLog: string): Promise<void> {
  let exited: string | null = null;
  server.once('exit', (code, signal) => {
    exited = `exited with ${signal ?? `code ${code}`}`;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`e2e: the server ${exited} before it was ready; see ${serverLog}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `e2e: the server did not answer ${url} within ${READY_TIMEOUT_MS / 1000}s; see ${serverLog}`,
  );
}

async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
