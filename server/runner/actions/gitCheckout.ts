// Dagu's `git.checkout` action, run with the `git` program: clone `repository` into `path` (relative to the
// step's working directory) when no repository is there yet, else fetch its `origin`; then check out `ref`
// (a branch, tag or commit; default: the remote's HEAD) as a detached HEAD, as Dagu's go-git checkout leaves
// it. Prints one JSON line: {operation, path, ref, commit, cloned, changed}.
//
// Credentials never reach argv, the logs or the output: a token or password is answered to git's prompt by
// a throw-away askpass script that reads it from the git process's environment (credential helpers are
// turned off for the command, so nothing is stored), and an ssh key is named in GIT_SSH_COMMAND.

import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { errorCode } from '../../store/fsutil';
import type { CheckoutConfig } from './gitConfig';
import { gitEnvironment, gitFailure, runGit, type GitOutcome } from './gitExec';
import { GoStruct, goJson } from './goJson';
import { sinkWriter } from './sinkWriter';
import type { ActionContext } from './types';

/** A failure of the checkout, already worded for the step's error. */
export class CheckoutError extends Error {}

const FULL_HASH = /^[0-9a-fA-F]{40}$|^[0-9a-fA-F]{64}$/;

export async function runCheckout(cfg: CheckoutConfig, ctx: ActionContext): Promise<void> {
  const target = resolve(ctx.workingDir, cfg.path);
  const secrets = [cfg.token, cfg.password].filter((s) => s !== '');
  const auth = await prepareAuth(cfg, ctx);
  try {
    const git = async (cwd: string, args: string[]): Promise<GitOutcome> => {
      const r = await runGit([...auth.args, ...args], { cwd, env: auth.env, signal: ctx.signal });
      return { ...r, stdout: redact(r.stdout, secrets), stderr: redact(r.stderr, secrets) };
    };
    const must = async (what: string, cwd: string, args: string[]): Promise<string> => {
      const r = await git(cwd, args);
      if (r.code !== 0) throw new CheckoutError(gitFailure(`git checkout: ${what}`, r));
      return r.stdout.trim();
    };
    const commitOf = async (cwd: string, rev: string): Promise<string | null> => {
      const r = await git(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
      return r.code === 0 ? r.stdout.trim() : null;
    };

    const cloned = !(await isRepository(target));
    let before = '';
    const depthArgs = cfg.depth > 0 ? [`--depth=${cfg.depth}`] : [];
    if (cloned) {
      await ensureCloneTarget(target);
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      // A shallow clone of a local path needs file:// (git ignores --depth otherwise); go-git's clone fetches
      // every branch, where --depth alone would fetch one.
      const source = cfg.depth > 0 ? await asFileUrl(cfg.repository, ctx.workingDir) : cfg.repository;
      const extra = cfg.depth > 0 ? [...depthArgs, '--no-single-branch'] : [];
      await must('clone failed', ctx.workingDir, ['clone', '--quiet', ...extra, '--', source, target]);
    } else {
      before = (await commitOf(target, 'HEAD')) ?? '';
      await must('fetch failed', target, [
        'fetch',
        '--quiet',
        '--force',
        ...depthArgs,
        'origin',
        '+refs/heads/*:refs/remotes/origin/*',
        '+refs/tags/*:refs/tags/*',
      ]);
    }

    let commit: string | null;
    let wanted: string;
    if (cfg.ref === '') {
      wanted = 'the remote HEAD';
      if (cloned) {
        commit = (await commitOf(target, 'refs/remotes/origin/HEAD')) ?? (await commitOf(target, 'HEAD'));
      } else {
        const head = await git(target, ['fetch', '--quiet', ...depthArgs, 'origin', 'HEAD']);
        commit = head.code === 0 ? await commitOf(target, 'FETCH_HEAD') : null;
        commit ??= await commitOf(target, 'refs/remotes/origin/HEAD');
        commit ??= await commitOf(target, 'HEAD');
      }
      if (commit === null) throw new CheckoutError('git checkout: head: the repository has no commit');
    } else {
      wanted = JSON.stringify(cfg.ref);
      commit = await resolveRef(cfg.ref, target, commitOf);
      if (commit === null) throw new CheckoutError(`git checkout: ref ${wanted} not found`);
    }

    if (!cfg.force) {
      // As go-git, a checkout without force refuses a worktree whose tracked files have unstaged changes.
      const diff = await git(target, ['diff', '--quiet']);
      if (diff.code === 1)
        throw new CheckoutError(
          `git checkout: checkout ${wanted}: worktree contains unstaged changes (set force: true to discard them)`,
        );
    }
    await must(`checkout ${wanted}`, target, [
      'checkout',
      '--quiet',
      ...(cfg.force ? ['--force'] : []),
      '--detach',
      commit,
      '--',
    ]);

    const result = new GoStruct([
      ['operation', 'checkout'],
      ['path', target],
      ['ref', cfg.ref === '' ? undefined : cfg.ref],
      ['commit', commit],
      ['cloned', cloned],
      ['changed', cloned || before !== commit],
    ]);
    await sinkWriter(ctx.stdout)(`${goJson(result)}\n`);
  } finally {
    await auth.cleanup();
  }
}

/**
 * The commit `ref` names: a full hash that is present; else the fetched remote branch, a tag, a local
 * branch, then anything else git reads as a revision (a short hash).
 */
async function resolveRef(
  ref: string,
  repo: string,
  commitOf: (cwd: string, rev: string) => Promise<string | null>,
): Promise<string | null> {
  if (FULL_HASH.test(ref)) return commitOf(repo, ref);
  for (const rev of [`refs/remotes/origin/${ref}`, `refs/tags/${ref}`, `refs/heads/${ref}`, ref]) {
    const commit = await commitOf(repo, rev);
    if (commit !== null) return commit;
  }
  return null;
}

/** Whether `path` holds a repository of its own (a `.git` directory or file), as go-git's PlainOpen asks. */
async function isRepository(path: string): Promise<boolean> {
  try {
    await stat(join(path, '.git'));
    return true;
  } catch (e) {
    if (errorCode(e) === 'ENOENT' || errorCode(e) === 'ENOTDIR') return false;
    throw new CheckoutError(`git checkout: open repository: ${(e as Error).message}`);
  }
}

/** A clone goes into a missing or empty directory only. */
async function ensureCloneTarget(path: string): Promise<void> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return;
    throw new CheckoutError(`git checkout: stat target: ${(e as Error).message}`);
  }
  if (!isDir) throw new CheckoutError('git checkout: target path exists and is not a directory');
  if ((await readdir(path)).length > 0)
    throw new CheckoutError('git checkout: target directory is not a git repository and is not empty');
}

/** A local repository path as a file:// URL (so that --depth applies); a URL or scp-like address as is. */
async function asFileUrl(repository: string, cwd: string): Promise<string> {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(repository) || /^[^/]+:/.test(repository)) return repository;
  const path = resolve(cwd, repository);
  try {
    await stat(path);
  } catch {
    return repository;
  }
  return `file://${path.split('/').map(encodeURIComponent).join('/')}`;
}

interface Auth {
  /** Options before the git subcommand. */
  args: string[];
  env: Record<string, string | undefined>;
  cleanup(): Promise<void>;
}

async function prepareAuth(cfg: CheckoutConfig, ctx: ActionContext): Promise<Auth> {
  const none: Auth = { args: [], env: gitEnvironment(ctx.env), cleanup: async () => undefined };
  if (cfg.sshKeyPath !== '') {
    const key = isAbsolute(cfg.sshKeyPath) ? cfg.sshKeyPath : resolve(ctx.workingDir, cfg.sshKeyPath);
    let text: string;
    try {
      text = await readFile(key, 'utf8');
    } catch (e) {
      throw new CheckoutError(`git checkout: load ssh key: ${(e as Error).message}`);
    }
    if (isEncryptedKey(text))
      throw new CheckoutError(
        `git checkout: load ssh key: ${key} is protected by a passphrase, which this product does not support (use a key without one, or an ssh-agent)`,
      );
    const command = `ssh -i ${shellQuote(key)} -o IdentitiesOnly=yes -o BatchMode=yes`;
    return { ...none, env: gitEnvironment(ctx.env, { GIT_SSH_COMMAND: command }) };
  }
  const password = cfg.token !== '' ? cfg.token : cfg.password;
  if (password === '') return none;
  const username = cfg.token !== '' ? 'git' : cfg.username || 'git';
  const dir = await mkdtemp(join(tmpdir(), 'dagu-git-'));
  const script = join(dir, `askpass-${randomBytes(6).toString('hex')}`);
  await writeFile(script, ASKPASS, { mode: 0o700 });
  return {
    // No credential helper: the answer comes from the askpass script, and is stored nowhere.
    args: ['-c', 'credential.helper='],
    env: gitEnvironment(ctx.env, {
      GIT_ASKPASS: script,
      DAGU_GIT_USERNAME: username,
      DAGU_GIT_PASSWORD: password,
    }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

const ASKPASS = `#!/bin/sh
case "$1" in
  [Uu]sername*) printf '%s\\n' "$DAGU_GIT_USERNAME" ;;
  *) printf '%s\\n' "$DAGU_GIT_PASSWORD" ;;
esac
`;

/** Whether a private key file needs a passphrase: PEM's ENCRYPTED markers, or an OpenSSH key with a cipher. */
export function isEncryptedKey(text: string): boolean {
  if (/Proc-Type:\s*4,ENCRYPTED|BEGIN ENCRYPTED PRIVATE KEY/.test(text)) return true;
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!m) return false;
  const body = Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
  const magic = 'openssh-key-v1\0';
  if (body.subarray(0, magic.length).toString('latin1') !== magic) return false;
  const len = body.readUInt32BE(magic.length);
  const cipher = body.subarray(magic.length + 4, magic.length + 4 + len).toString('latin1');
  return cipher !== 'none';
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Text with every secret replaced, so that nothing git echoes carries one. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}
