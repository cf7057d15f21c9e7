// A socket on the local disk that processes the scheduler starts connect back to (pre-started run processes,
// run lanes): in a directory of its own (mode 0700, under the system's temp directory, never on the data
// volume), so only this user's processes can reach it, and each says a token first that the scheduler gave it.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
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
