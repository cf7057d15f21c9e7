// Dagu's `git.worktree.add` and `git.worktree.remove` actions: linked worktrees of the local repository that
// contains the step's working directory (a subdirectory, a linked worktree or a bare repository will do).
// Relative paths start at that repository's root. Every check is made before anything changes, the whole
// inspect-and-change sequence holds a lock in the repository's common git directory (steps of parallel runs
// share it), and the action publishes fixed outputs instead of printing:
//   add:    path, branch, commit, worktree_created, branch_created
//   remove: path, branch, worktree_removed, branch_deleted
// Neither contacts a remote: a `base` resolves among local refs only.

import { createHash } from 'node:crypto';
import { readdir, readFile, realpath, rm, stat, lstat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep, basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFileExclusive, errorCode } from '../../store/fsutil';
import type { WorktreeConfig } from './gitConfig';
import { gitEnvironment, gitFailure, runGit, type GitOutcome } from './gitExec';
import type { ActionContext } from './types';

/** A failure already worded for the step's error. */
export class WorktreeError extends Error {}

const LOCK_FILE = 'dagu-worktree.pid.lock';
const LOCK_POLL_MS = 25;
const COMMIT_HASH = /^[0-9a-fA-F]{7,64}$/;

interface Repository {
  /** The root as the user spells it (the working directory's spelling when it leads there). */
  root: string;
  commonDir: string;
}

interface Registration {
  /** Canonical (symlinks resolved). */
  path: string;
  head: string;
  /** `refs/heads/<name>`, or '' when detached. */
  branch: string;
  primary: boolean;
  bare: boolean;
}

type Git = (cwd: string, args: string[]) => Promise<GitOutcome>;

/** Runs the operation; resolves with the outputs, rejects with a WorktreeError (or a stop). */
export async function runWorktree(
  op: 'worktree.add' | 'worktree.remove',
  cfg: WorktreeConfig,
  ctx: ActionContext,
): Promise<Record<string, unknown>> {
  const env = gitEnvironment(ctx.env);
  const git: Git = (cwd, args) => runGit(args, { cwd, env, signal: ctx.signal });
  let repo: Repository;
  try {
    repo = await discoverRepository(git, ctx.workingDir);
  } catch (e) {
    throw wrap(`git ${op}`, e);
  }
  const release = await lockRepository(repo.commonDir, ctx.signal).catch((e: unknown) => {
    throw wrap(`git ${op}`, e);
  });
  try {
    const w = new Worktrees(git, repo);
    return op === 'worktree.add' ? await w.add(cfg, generatedBranch(ctx)) : await w.remove(cfg);
  } catch (e) {
    throw wrap(`git ${op}: repository ${JSON.stringify(repo.root)}`, e);
  } finally {
    await release();
  }
}

function wrap(prefix: string, e: unknown): Error {
  if (e instanceof WorktreeError) return new WorktreeError(`${prefix}: ${e.message}`);
  return e instanceof Error ? e : new Error(String(e));
}

/** `dagu/` and 32 hex digits of the run and the step: one branch per step of each run. */
function generatedBranch(ctx: ActionContext): string {
  const digest = createHash('sha256')
    .update(`${ctx.runId ?? ctx.env.DAG_RUN_ID ?? ''}\0${ctx.stepIdentity ?? ''}`)
    .digest('hex');
  return `dagu/${digest.slice(0, 32)}`;
}

async function discoverRepository(git: Git, workDir: string): Promise<Repository> {
  let info;
  try {
    info = await stat(workDir);
  } catch (e) {
    throw new WorktreeError(`working directory ${JSON.stringify(workDir)}: ${(e as Error).message}`);
  }
  if (!info.isDirectory())
    throw new WorktreeError(`working directory ${JSON.stringify(workDir)} is not a directory`);
  const output = async (what: string, args: string[]) => {
    const r = await git(workDir, args);
    if (r.code !== 0) throw new WorktreeError(gitFailure(what, r));
    return r.stdout.trim();
  };
  const bare =
    (await output(`discover repository from ${JSON.stringify(workDir)}`, [
      'rev-parse',
      '--is-bare-repository',
    ])) === 'true';
  const root = await output('resolve repository root', [
    'rev-parse',
    bare ? '--absolute-git-dir' : '--show-toplevel',
  ]);
  let commonDir = await output('resolve repository common directory', ['rev-parse', '--git-common-dir']);
  if (!isAbsolute(commonDir)) commonDir = join(workDir, commonDir);
  const canonicalRoot = await canonicalPath(root);
  // Outputs keep the spelling of the working directory (a symlinked temp dir) when it leads to the root.
  let candidate = resolve(workDir);
  if (!bare) {
    const prefix = await output('resolve repository path prefix', ['rev-parse', '--show-prefix']);
    for (const part of prefix.split('/')) if (part !== '') candidate = dirname(candidate);
  }
  const display =
    (await canonicalPath(candidate).catch(() => null)) === canonicalRoot ? candidate : canonicalRoot;
  return { root: display, commonDir: await canonicalPath(commonDir) };
}

/**
 * Takes the repository's worktree lock: a file created exclusively with this process's pid, waited for
 * while another live process holds it, taken over when its holder is gone. Resolves with its release.
 */
async function lockRepository(commonDir: string, signal: AbortSignal): Promise<() => Promise<void>> {
  const file = join(commonDir, LOCK_FILE);
  const token = `${process.pid}\n`;
  for (;;) {
    if (signal.aborted) throw new WorktreeError('acquire repository lock: interrupted');
    if (await createFileExclusive(file, token)) {
      return async () => {
        const held = await readFile(file, 'utf8').catch(() => null);
        if (held === token) await rm(file, { force: true });
      };
    }
    const holder = Number.parseInt((await readFile(file, 'utf8').catch(() => '')).trim(), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && !alive(holder)) {
      await rm(file, { force: true });
      continue;
    }
    await sleep(LOCK_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === 'EPERM';
  }
}

class Worktrees {
  constructor(
    private readonly git: Git,
    private readonly repo: Repository,
  ) {}

  async add(cfg: WorktreeConfig, generated: string): Promise<Record<string, unknown>> {
    const root = this.repo.root;
    const branch = cfg.branch ?? generated;
    await this.validateBranch(branch);
    const target =
      cfg.path === null ? join(`${root}.worktrees`, ...branch.split('/')) : resolve(root, cfg.path);
    const targetKey = await canonicalPath(target);

    const registrations = await this.list();
    const byPath = registrations.find((r) => r.path === targetKey);
    const byBranch = registrations.find((r) => r.branch === `refs/heads/${branch}`);
    if (byPath && byPath === byBranch && !byPath.primary && !byPath.bare) {
      if (await stale(byPath))
        throw new WorktreeError(
          `worktree ${JSON.stringify(target)} has a stale registration; use git.worktree.remove to unregister it before retrying`,
        );
      return addOutputs(target, branch, byPath.head, false, false);
    }
    if (byBranch)
      throw new WorktreeError(
        `branch ${JSON.stringify(branch)} is already checked out at ${JSON.stringify(byBranch.path)}`,
      );
    if (byPath)
      throw new WorktreeError(
        `path ${JSON.stringify(target)} is already registered for branch ${JSON.stringify(short(byPath.branch))}`,
      );
    await ensureEmptyTarget(target);

    const branchRef = `refs/heads/${branch}`;
    const existing = await this.commitOf(branchRef);
    let args: string[];
    if (existing !== null) {
      args = ['worktree', 'add', '--', target, branch];
    } else {
      if (cfg.branch !== null && !cfg.createBranch)
        throw new WorktreeError(
          `branch ${JSON.stringify(branch)} does not exist; set create_branch to create it`,
        );
      args = ['worktree', 'add', '-b', branch, '--', target, await this.addBase(cfg.base)];
    }
    const made = await this.git(root, args);
    if (made.code !== 0)
      throw await this.failedAdd(
        target,
        branch,
        gitFailure(`create worktree ${JSON.stringify(target)}`, made),
      );

    const created = (await this.list()).find((r) => r.path === targetKey);
    if (!created || created.branch !== branchRef)
      throw await this.failedAdd(
        target,
        branch,
        `created worktree registration does not match path ${JSON.stringify(target)} and branch ${JSON.stringify(branch)}`,
      );
    if (await stale(created))
      throw await this.failedAdd(target, branch, `created worktree ${JSON.stringify(target)} is missing`);
    return addOutputs(target, branch, created.head, true, existing === null);
  }

  async remove(cfg: WorktreeConfig): Promise<Record<string, unknown>> {
    const root = this.repo.root;
    let registrations = await this.list();
    const linked = (r: Registration | undefined) => (r && !r.primary && !r.bare ? r : undefined);

    let path = '';
    let byPath: Registration | undefined;
    if (cfg.path !== null) {
      path = resolve(root, cfg.path);
      const key = await canonicalPath(path);
      const found = registrations.find((r) => r.path === key);
      if (found?.primary)
        throw new WorktreeError(`refusing to remove primary working tree ${JSON.stringify(path)}`);
      byPath = linked(found);
    }
    let byBranch: Registration | undefined;
    if (cfg.branch !== null) {
      await this.validateBranch(cfg.branch);
      byBranch = linked(registrations.find((r) => r.branch === `refs/heads/${cfg.branch}`));
    }
    let target: Registration | undefined;
    if (cfg.path !== null && cfg.branch !== null) {
      if (byPath || byBranch) {
        if (!byPath || !byBranch || byPath.path !== byBranch.path)
          throw new WorktreeError(
            `branch ${JSON.stringify(cfg.branch)} and path ${JSON.stringify(path)} identify different worktrees`,
          );
        target = byPath;
      }
    } else if (cfg.path !== null) {
      target = byPath;
    } else {
      target = byBranch;
      if (target) path = await displayPath(root, target.path);
    }
    const branch = cfg.branch ?? (target ? short(target.branch) : '');

    // Every safety check comes before the worktree or the branch changes.
    let isStale = false;
    if (target) {
      isStale = await stale(target);
      if (!isStale && !cfg.force) {
        const status = await this.git(target.path, ['status', '--porcelain', '-z', '--untracked-files=all']);
        if (status.code !== 0)
          throw new WorktreeError(gitFailure(`inspect worktree ${JSON.stringify(target.path)}`, status));
        if (status.stdout.length > 0)
          throw new WorktreeError(`worktree ${JSON.stringify(target.path)} has uncommitted changes`);
      }
    }
    let branchExists = false;
    if (cfg.deleteBranch && cfg.branch !== null) {
      branchExists = (await this.commitOf(`refs/heads/${cfg.branch}`)) !== null;
      if (branchExists) {
        const elsewhere = registrations.find(
          (r) => r.branch === `refs/heads/${cfg.branch}` && r.path !== target?.path,
        );
        if (elsewhere)
          throw new WorktreeError(
            `branch ${JSON.stringify(cfg.branch)} is checked out at ${JSON.stringify(elsewhere.path)}`,
          );
        if (!cfg.forceDeleteBranch) {
          const merged = await this.git(root, [
            'merge-base',
            '--is-ancestor',
            `refs/heads/${cfg.branch}`,
            'HEAD',
          ]);
          if (merged.code === 1)
            throw new WorktreeError(
              `branch ${JSON.stringify(cfg.branch)} is not merged into repository HEAD`,
            );
          if (merged.code !== 0)
            throw new WorktreeError(
              gitFailure(`check whether branch ${JSON.stringify(cfg.branch)} is merged`, merged),
            );
        }
      }
    }

    let removed = false;
    if (target) {
      const r = await this.git(root, [
        'worktree',
        'remove',
        ...(isStale || cfg.force ? ['--force'] : []),
        '--',
        target.path,
      ]);
      if (r.code !== 0)
        throw new WorktreeError(gitFailure(`remove worktree ${JSON.stringify(target.path)}`, r));
      registrations = await this.list();
      if (linked(registrations.find((x) => x.path === target.path)))
        throw new WorktreeError(`worktree ${JSON.stringify(target.path)} remains registered after removal`);
      removed = true;
    }
    let deleted = false;
    if (cfg.deleteBranch && cfg.branch !== null && branchExists) {
      const elsewhere = registrations.find((r) => r.branch === `refs/heads/${cfg.branch}`);
      if (elsewhere)
        throw new WorktreeError(
          `branch ${JSON.stringify(cfg.branch)} is checked out at ${JSON.stringify(elsewhere.path)}`,
        );
      const r = await this.git(root, ['branch', cfg.forceDeleteBranch ? '-D' : '-d', '--', cfg.branch]);
      if (r.code !== 0) throw new WorktreeError(gitFailure(`delete branch ${JSON.stringify(cfg.branch)}`, r));
      deleted = true;
    }
    return { path, branch, worktree_removed: removed, branch_deleted: deleted };
  }

  private async validateBranch(branch: string): Promise<void> {
    const r = await this.git(this.repo.root, ['check-ref-format', '--branch', branch]);
    if (r.code !== 0) throw new WorktreeError(gitFailure(`invalid branch ${JSON.stringify(branch)}`, r));
  }

  /** The commit a ref names, or null when it names none. */
  private async commitOf(ref: string): Promise<string | null> {
    const r = await this.git(this.repo.root, [
      'rev-parse',
      '--verify',
      '--end-of-options',
      `${ref}^{commit}`,
    ]);
    if (r.code === 0) return r.stdout.trim();
    if (r.code === 1 || r.code === 128) return null;
    throw new WorktreeError(gitFailure(`resolve ${JSON.stringify(ref)}`, r));
  }

  /** The start of a new branch: HEAD, or `base` as a commit hash, a local branch, an origin branch or a tag. */
  private async addBase(base: string | null): Promise<string> {
    if (base === null) {
      const head = await this.commitOf('HEAD');
      if (head === null) throw new WorktreeError('repository HEAD does not resolve to a commit');
      return head;
    }
    const candidates = [
      ...(COMMIT_HASH.test(base) ? [base] : []),
      `refs/heads/${base}`,
      `refs/remotes/origin/${base}`,
      `refs/tags/${base}`,
    ];
    for (const c of candidates) {
      const commit = await this.commitOf(c);
      if (commit !== null) return commit;
    }
    throw new WorktreeError(`base ${JSON.stringify(base)} does not resolve to a local commit`);
  }

  /** After a failed add: unregister what it left when its directory never appeared, then the error. */
  private async failedAdd(target: string, branch: string, message: string): Promise<WorktreeError> {
    try {
      const key = await canonicalPath(target);
      const left = (await this.list()).find((r) => r.path === key);
      if (left && short(left.branch) === branch && !(await exists(target))) {
        const r = await this.git(this.repo.root, ['worktree', 'remove', '--force', '--', target]);
        if (r.code !== 0)
          return new WorktreeError(`${message}; repair failed worktree add: ${gitFailure('remove', r)}`);
      }
    } catch (e) {
      return new WorktreeError(`${message}; repair failed worktree add: ${(e as Error).message}`);
    }
    return new WorktreeError(message);
  }

  private async list(): Promise<Registration[]> {
    let r = await this.git(this.repo.root, ['worktree', 'list', '--porcelain', '-z']);
    let separator = '\0';
    if (r.code === 129) {
      // git before 2.36 has no -z.
      r = await this.git(this.repo.root, ['worktree', 'list', '--porcelain']);
      separator = '\n';
    }
    if (r.code !== 0) throw new WorktreeError(gitFailure('list worktrees', r));
    const out: Registration[] = [];
    let current: Registration | null = null;
    const flush = async () => {
      if (current) out.push({ ...current, path: await canonicalPath(current.path) });
      current = null;
    };
    for (const field of r.stdout.split(separator)) {
      if (field === '') {
        await flush();
      } else if (field.startsWith('worktree ')) {
        await flush();
        current = { path: field.slice(9), head: '', branch: '', primary: false, bare: false };
      } else if (current) {
        const c: Registration = current;
        if (field.startsWith('HEAD ')) c.head = field.slice(5);
        else if (field.startsWith('branch ')) c.branch = field.slice(7);
        else if (field === 'bare') c.bare = true;
      }
    }
    await flush();
    if (out.length > 0 && !out[0].bare) out[0].primary = true;
    return out;
  }
}

function addOutputs(path: string, branch: string, commit: string, created: boolean, branchCreated: boolean) {
  return { path, branch, commit, worktree_created: created, branch_created: branchCreated };
}

function short(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return false;
    throw e;
  }
}

/** A registration whose directory is gone. */
async function stale(r: Registration): Promise<boolean> {
  try {
    await stat(r.path);
    return false;
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return true;
    throw new WorktreeError(`inspect registered worktree ${JSON.stringify(r.path)}: ${(e as Error).message}`);
  }
}

async function ensureEmptyTarget(path: string): Promise<void> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return;
    throw new WorktreeError(`inspect worktree path ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  if (!isDir) throw new WorktreeError(`worktree path ${JSON.stringify(path)} exists and is not a directory`);
  if ((await readdir(path)).length > 0)
    throw new WorktreeError(`worktree path ${JSON.stringify(path)} is not empty`);
}

/**
 * A path with the symlinks of its longest existing ancestor resolved and the rest kept as written: a
 * worktree path that does not exist yet compares equal to the one git registers once it does.
 */
export async function canonicalPath(path: string): Promise<string> {
  let existing = resolve(path);
  const suffix: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (e) {
      if (errorCode(e) !== 'ENOENT' && errorCode(e) !== 'ENOTDIR') throw e;
      const parent = dirname(existing);
      if (parent === existing) throw new WorktreeError(`no existing ancestor for ${JSON.stringify(path)}`);
      suffix.unshift(basename(existing));
      existing = parent;
    }
  }
  return join(await realpath(existing), ...suffix);
}

/** A canonical registration path spelled beneath the repository root as the user spells it. */
async function displayPath(root: string, canonical: string): Promise<string> {
  let display = root;
  for (;;) {
    const resolved = await realpath(display).catch(() => display);
    if (resolved !== display) {
      const rel = relative(resolved, canonical);
      if (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return join(display, rel);
    }
    const parent = dirname(display);
    if (parent === display) return canonical;
    display = parent;
  }
}
