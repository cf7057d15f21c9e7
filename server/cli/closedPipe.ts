// A closed pipe (`dagu status … | head`) is the reader's choice, not an error: a write that meets EPIPE
// ends the command with the exit code it already had.
//
// The handler is attached when a stream is first used rather than at start: Node creates process.stdout
// and process.stderr on first access, and for a pipe that costs about a millisecond each, which a quiet
// `dagu start` that succeeds never needs to spend.

type StdName = 'stdout' | 'stderr';

function onClosedPipe(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
}

/** The standard streams Node has made so far (it makes each on first use). */
const made: NodeJS.WriteStream[] = [];

/** Makes a closed pipe on stdout or stderr end the command quietly, from the stream's first use on. */
export function exitQuietlyOnClosedPipe(): void {
  for (const name of ['stdout', 'stderr'] as const) {
    whenCreated(name, (s) => {
      made.push(s);
      s.on('error', onClosedPipe);
    });
  }
}

/**
 * Whether stdout or stderr holds output not yet handed to the system: a pipe that was full when written to
 * through the stream (stdio.ts falls back to it then). process.exit would drop that output; Node's own exit
 * waits for it. Asking makes no stream.
 */
export function stdioPending(): boolean {
  return made.some((s) => s.writableLength > 0);
}

function whenCreated(name: StdName, attach: (stream: NodeJS.WriteStream) => void): void {
  const original = Object.getOwnPropertyDescriptor(process, name);
  if (original?.get === undefined || !original.configurable) {
    attach(process[name]);
    return;
  }
  const create = original.get;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: original.enumerable,
    get() {
      // Node's own getter keeps the stream it made; it answers every later access directly again.
      const stream = create.call(process) as NodeJS.WriteStream;
      Object.defineProperty(process, name, original);
      attach(stream);
      return stream;
    },
  });
}
