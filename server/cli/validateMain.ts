// Entry of dist/validate.cjs, the bundle bin/dagu runs for `dagu validate`. The command reads DAG files and
// nothing else, so its bundle leaves out the run engine, the services and the console's server: about a third
// of the main bundle (dist/cli.cjs, from main.ts), which every command would otherwise read, compile from its
// code cache and set up before its first line of work. The command line is the same program (program.ts)
// with only this command defined; `dagu help validate` and `dagu --help` still go to the main bundle.

import { exitQuietlyOnClosedPipe, stdioPending } from './closedPipe';
import { runCommandLine } from './program';
import { defineValidate } from './validateCommandLine';

exitQuietlyOnClosedPipe();

// What the command prints is written synchronously (stdio.ts, and the logger's sync destination), so once it
// has settled nothing is left to do but Node's tear-down of the heap, which process.exit skips: about 5 ms of
// a `dagu validate` of a large DAG. The exit code is the one the command set. Output still held by a stream
// (a full pipe) is left to Node's own exit, which waits for it.
void runCommandLine(defineValidate).then(() => {
  if (!stdioPending()) process.exit();
});
