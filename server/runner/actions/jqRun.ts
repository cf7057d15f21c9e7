// Runs one jq program over one JSON input with jq-wasm (jq 1.8.2 compiled to WebAssembly) in a worker
// thread: a long or endless filter never blocks the run's event loop, and a stopped step ends it at once.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What jq printed (compact JSON, one result a line) and how it exited: 3 = the filter does not compile. */
export interface JqOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The worker: loads jq-wasm from its CommonJS entry (a path, so that no bundler has to know about it). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { loadJq } = require(workerData.entry);
loadJq({ wasmModule: workerData.module }).then(
  (jq) => parentPort.postMessage(jq.raw(workerData.input, workerData.filter, ['-c'])),
  (e) => parentPort.postMessage({ loadError: String((e && e.message) || e) }),
);
`;

interface JqWasm {
  entry: string;
  module: WebAssembly.Module;
}

let loaded: Promise<JqWasm> | null = null;

/** Finds jq-wasm and compiles its WebAssembly once per process; each run's worker instantiates it. */
function jqWasm(): Promise<JqWasm> {
  loaded ??= (async () => {
    // In the bundled CLI `require` is Node's own; under an ES module runtime (the tests) it is made here.
    const resolve = typeof require === 'function' ? require.resolve : createRequire(import.meta.url).resolve;
    const entry = resolve('jq-wasm');
    const module = await WebAssembly.compile(await readFile(resolve('jq-wasm/jq.wasm')));
    return { entry, module };
  })();
  loaded.catch(() => {
    loaded = null;
  });
  return loaded;
}

/** Runs `filter` over the JSON text `input`; rejects when stopped through `signal` or when jq cannot load. */
export async function runJq(filter: string, input: string, signal: AbortSignal): Promise<JqOutcome> {
  const { entry, module } = await jqWasm();
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('stopped'));
      return;
    }
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { entry, module, filter, input },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = () => settle(() => reject(new Error('stopped')));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: JqOutcome | { loadError: string }) =>
      settle(() => ('loadError' in m ? reject(new Error(`cannot load jq: ${m.loadError}`)) : resolve(m))),
    );
    worker.once('error', (e) => settle(() => reject(e)));
    worker.once('exit', (code) => settle(() => reject(new Error(`jq worker exited with code ${code}`))));
  });
}
