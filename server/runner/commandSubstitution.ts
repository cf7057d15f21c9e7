// Dagu's command substitution (the backtick and `$(...)` bodies of a precondition or param `eval`): the body
// runs as `<shell> <args> -c <body>` and its stdout is the value. One implementation for both callers.

import { execFile } from 'node:child_process';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCapture';

export interface SubstitutionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How long the body may run before it is killed (SIGKILL) and the substitution fails; null: no limit. */
  timeoutMs: number | null;
  /** Most stdout kept; more fails the substitution. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/** `<shell> <args> -c <text>`, keeping a configured `-c` where it is. */
export function shellArgv(shell: readonly string[], text: string): { file: string; args: string[] } {
  const [file = 'sh', ...args] = shell;
  return { file, args: args.includes('-c') ? [...args, text] : [...args, '-c', text] };
}

/** Runs one body; resolves with its stdout, rejects with why it failed (and its stderr, if any). */
export function substituteCommand(
  shell: readonly string[],
  body: string,
  o: SubstitutionOptions,
): Promise<string> {
  const { file, args } = shellArgv(shell, body);
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: o.cwd,
        env: o.env,
        timeout: o.timeoutMs ?? 0,
        killSignal: 'SIGKILL',
        maxBuffer: o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        signal: o.signal,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const why =
          err.killed && !o.signal?.aborted
            ? `timed out after ${(o.timeoutMs ?? 0) / 1000}s`
            : err.message.split('\n')[0];
        reject(new Error(stderr.trim() ? `${why}; stderr: ${stderr.trim()}` : why));
      },
    );
  });
}
