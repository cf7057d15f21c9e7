// A socket on the local disk that processes the scheduler starts connect back to (pre-started run processes,
// run lanes): in a directory of its own (mode 0700, under the system's temp directory, never on the data
// volume), so only this user's processes can reach it, and each says a token first that the scheduler gave it.
// A process killed outright cannot remove its directory: the next one to listen under the same prefix removes
// the directories whose socket no process answers any more.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class LocalSocket {
  private listener: { server: Server; dir: string; socketPath: string } | null = null;

  /** `prefix` names the directory; `onConnection` gets every connection (unreferenced: it never keeps the process). */
  constructor(
    private readonly prefix: string,
    private readonly onConnection: (socket: Socket) => void,
  ) {}

  /** The socket's path, listening from the first call on. */
  listen(): Promise<string> {
    if (this.listener) return Promise.resolve(this.listener.socketPath);
    const dir = mkdtempSync(path.join(tmpdir(), this.prefix));
    const socketPath = path.join(dir, 'socket');
    const server = createServer((socket) => {
      socket.unref();
      this.onConnection(socket);
    });
    server.unref();
    this.listener = { server, dir, socketPath };
    return new Promise<string>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        server.on('error', () => undefined);
        resolve(socketPath);
        void sweepStaleSockets(this.prefix, dir);
      });
    });
  }

  /** Stops listening and removes the directory; connections made already stay open. */
  close(): void {
    if (!this.listener) return;
    const { server, dir } = this.listener;
    this.listener = null;
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A directory with no socket yet may belong to a process between creating it and listening: left this long. */
const NO_SOCKET_GRACE_MS = 10 * 60_000;

/**
 * Removes the directories under the temp directory named with `prefix` (other than `own`) that a killed
 * process left: its socket refuses connections (no process listens on it), or there is no socket in it and it
 * is older than NO_SOCKET_GRACE_MS. Judged by the socket, not by a process ID, so a directory of a live
 * process in another PID namespace sharing the temp directory is never taken. Never fails.
 */
export async function sweepStaleSockets(prefix: string, own: string | null = null): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(prefix));
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = path.join(tmpdir(), name);
    if (dir === own) continue;
    const verdict = await socketState(path.join(dir, 'socket'));
    let stale = verdict === 'refused';
    if (verdict === 'missing') {
      try {
        const st = statSync(dir);
        stale = st.isDirectory() && Date.now() - st.mtimeMs > NO_SOCKET_GRACE_MS;
      } catch {
        stale = false;
      }
    }
    if (!stale) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // another user's, or gone already
    }
  }
  return removed;
}

/** Whether a process listens on the socket at `file`: `live`, `refused` (none does), `missing`, or `unknown`. */
function socketState(file: string): Promise<'live' | 'refused' | 'missing' | 'unknown'> {
  return new Promise((resolve) => {
    const s = connect(file);
    const done = (v: 'live' | 'refused' | 'missing' | 'unknown') => {
      clearTimeout(timer);
      s.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done('unknown'), 2000);
    timer.unref();
    s.unref();
    s.once('connect', () => done('live'));
    s.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' ? 'refused' : err.code === 'ENOENT' ? 'missing' : 'unknown'),
    );
  });
}

/**
 * Calls `onLine` with the first line a connection sends (without its newline) and whatever came after it,
 * and drops a connection that sends none within 5 s or more than `maxBytes` without one. The socket's
 * encoding is set to UTF-8.
 */
export function firstLine(
  socket: Socket,
  onLine: (line: string, rest: string) => void,
  maxBytes = 200,
): void {
  socket.setEncoding('utf8');
  socket.on('error', () => undefined); // a peer that died: its 'close' tells
  let text = '';
  const drop = setTimeout(() => socket.destroy(), 5000);
  drop.unref();
  const onData = (d: string) => {
    text += d;
    const nl = text.indexOf('\n');
    if (nl < 0) {
      if (text.length > maxBytes) socket.destroy();
      return;
    }
    socket.off('data', onData);
    clearTimeout(drop);
    onLine(text.slice(0, nl).trim(), text.slice(nl + 1));
  };
  socket.on('data', onData);
}
