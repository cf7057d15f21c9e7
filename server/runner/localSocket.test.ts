import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalSocket, sweepStaleSockets } from './localSocket';

const made: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A prefix of this test's own, so that the sweep never sees another test's directories. */
const prefix = () => `dagu-sweeptest-${process.pid}-${Math.random().toString(36).slice(2, 8)}-`;

function dirOf(p: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), p));
  made.push(dir);
  return dir;
}

/** A socket in `dir` whose listening process was killed with SIGKILL, so nothing removed it. */
async function killedListener(dir: string): Promise<void> {
  const file = path.join(dir, 'socket');
  const child = spawn(
    process.execPath,
    ['-e', `require('net').createServer().listen(${JSON.stringify(file)}, () => console.log('up'))`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  expect(existsSync(file)).toBe(true);
}

describe('sweepStaleSockets', () => {
  it('removes the directory of a killed listener and keeps a live one', async () => {
    const p = prefix();
    const dead = dirOf(p);
    await killedListener(dead);
    const live = dirOf(p);
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path.join(live, 'socket'), resolve));

    expect(await sweepStaleSockets(p)).toEqual([dead]);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it('leaves a directory without a socket alone until it is old', async () => {
    const p = prefix();
    const fresh = dirOf(p);
    const old = dirOf(p);
    const longAgo = (Date.now() - 11 * 60_000) / 1000;
    utimesSync(old, longAgo, longAgo);

    expect(await sweepStaleSockets(p)).toEqual([old]);
    expect(existsSync(fresh)).toBe(true);
  });

  it('runs when a socket listens, never taking its own directory', async () => {
    const p = prefix();
    const dead = dirOf(p);
    await killedListener(dead);
    const socket = new LocalSocket(p, (s) => s.destroy());
    const file = await socket.listen();
    try {
      for (let i = 0; i < 100 && existsSync(dead); i++) await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(file)).toBe(true);
    } finally {
      socket.close();
    }
    expect(existsSync(path.dirname(file))).toBe(false);
  });
});
