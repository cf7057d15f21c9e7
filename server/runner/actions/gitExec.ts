// Runs the `git` program for the git actions: argv passed as words (no shell), output collected, the step's
// stop or timeout ending the whole process group git started (a fetch runs helpers such as ssh or
// git-remote-https), and no terminal prompt ever awaited. The environment is the step's, without the Git
// plumbing variables that would point `git -C <dir>` at some other repository.

import { existsSync } from 'node:fs';
import { spawnProcess } from '../spawnProcess';

/** How one git command ended. */
export interface GitOutcome {
  /** Exit code; null when a signal ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Thrown when the step was stopped while git ran; the process group was killed. */
export class GitStopped extends Error {}

/** Thrown when no `git` program can be started. */
export class GitMissing extends Error {}

export interface GitRunOptions {
  cwd: string;
  /** The step's environment, plus whatever the caller adds (askpass, ssh command). */
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
}

/** Inherited variables that redirect `git -C` to unrelated state, as Dagu drops them. */
const REDIRECTING = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
]);

/** The environment git runs with: the step's, minus the redirecting variables, never prompting. */
export function gitEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) if (!REDIRECTING.has(k)) out[k] = v;
  return { ...out, GIT_TERMINAL_PROMPT: '0', ...extra };
}

/** Runs `git <args>` in `cwd`; resolves with how it ended, whatever its exit code. */
export async function runGit(args: readonly string[], o: GitRunOptions): Promise<GitOutcome> {
  if (o.signal.aborted) throw new GitStopped('stopped before git started');
  const child = spawnProcess({
    file: 'git',
    args,
    cwd: o.cwd,
    env: o.env,
    detached: true,
    stdoutFd: 'pipe',
    stderrFd: 'pipe',
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const kill = () => {
    if (child.pid === null) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  o.signal.addEventListener('abort', kill, { once: true });
  try {
    const end = await child.exited;
    if (end.kind === 'spawn_failed') {
      // A missing working directory is reported as ENOENT too.
      if (/ENOENT/.test(end.error) && !existsSync(o.cwd))
        throw new Error(`directory ${JSON.stringify(o.cwd)} does not exist`);
      if (/ENOENT/.test(end.error))
        throw new GitMissing('the git program was not found on PATH: install git to run git.* actions');
      throw new Error(`git could not be started: ${end.error}`);
    }
    const [out, err] = await Promise.all([stdout, stderr]);
    if (o.signal.aborted) throw new GitStopped('git was stopped');
    return { code: end.exitCode, stdout: out, stderr: err };
  } finally {
    o.signal.removeEventListener('abort', kill);
  }
}

function collect(stream: NodeJS.ReadableStream | null): Promise<string> {
  if (!stream) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A failed git command as one line of text: what it did and what git said. */
export function gitFailure(what: string, r: GitOutcome): string {
  const said = (r.stderr.trim() || r.stdout.trim()).replace(/\s*\n\s*/g, '; ');
  const how = r.code === null ? 'was killed' : `exited with ${r.code}`;
  return said ? `${what}: git ${how}: ${said}` : `${what}: git ${how}`;
}
