import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { runGitAction } from './gitAction';
import { isEncryptedKey } from './gitCheckout';

const GIT_ENV = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Dagu Test',
  GIT_AUTHOR_EMAIL: 'dagu-test@example.com',
  GIT_COMMITTER_NAME: 'Dagu Test',
  GIT_COMMITTER_EMAIL: 'dagu-test@example.com',
};

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  for (const s of servers.splice(0)) s.close();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dagu-git-test-'));
  dirs.push(d);
  return d;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

function commit(repo: string, file: string, content: string): string {
  writeFileSync(join(repo, file), content);
  git(repo, 'add', '--', file);
  git(repo, 'commit', '-q', '-m', `update ${file}`);
  return git(repo, 'rev-parse', 'HEAD');
}

/** A source repository on `main` with one commit of version.txt; its path and first commit. */
function sourceRepo(): { path: string; first: string } {
  const path = join(tempDir(), 'source');
  git(tempDir(), 'init', '-q', path);
  git(path, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  return { path, first: commit(path, 'version.txt', 'one\n') };
}

function ctx(workingDir: string, w: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return testContext({ with: w, workingDir, env: { ...GIT_ENV }, ...extra });
}

async function checkout(workingDir: string, w: Record<string, unknown>) {
  const c = ctx(workingDir, w);
  const result = await runGitAction('checkout', c);
  return { result, out: c.out.text(), json: c.out.text() ? JSON.parse(c.out.text()) : null };
}

describe('git.checkout', () => {
  it('clones into a path relative to the working directory and prints what it did', async () => {
    const src = sourceRepo();
    const work = tempDir();
    const { result, out, json } = await checkout(work, { repository: src.path, path: 'ws/repo' });
    expect(result).toEqual({ exitCode: 0, error: null });
    expect(readFileSync(join(work, 'ws/repo/version.txt'), 'utf8')).toBe('one\n');
    expect(out).toBe(
      `{"operation":"checkout","path":"${join(work, 'ws/repo')}","commit":"${src.first}","cloned":true,"changed":true}\n`,
    );
    expect(json.ref).toBeUndefined();
  });

  it('checks out a branch, a tag or a commit, detached', async () => {
    const src = sourceRepo();
    git(src.path, 'tag', 'v1');
    git(src.path, 'checkout', '-q', '-b', 'topic');
    const topic = commit(src.path, 'topic.txt', 'topic\n');
    git(src.path, 'checkout', '-q', 'main');
    const second = commit(src.path, 'version.txt', 'two\n');
    const work = tempDir();
    for (const [ref, want] of [
      ['topic', topic],
      ['v1', src.first],
      [second, second],
      [src.first.slice(0, 10), src.first],
    ]) {
      const { result, json } = await checkout(work, { repository: src.path, path: ref, ref });
      expect(result.error).toBeNull();
      expect(json).toMatchObject({ ref, commit: want, cloned: true });
      expect(git(join(work, ref), 'rev-parse', 'HEAD')).toBe(want);
      expect(git(join(work, ref), 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD');
    }
  });

  it('makes a shallow clone of a local path with depth, every branch included', async () => {
    const src = sourceRepo();
    git(src.path, 'branch', 'other');
    commit(src.path, 'version.txt', 'two\n');
    const second = commit(src.path, 'version.txt', 'three\n');
    const work = tempDir();
    const { result, json } = await checkout(work, { repository: src.path, path: 'shallow', depth: 1 });
    expect(result.error).toBeNull();
    expect(json.commit).toBe(second);
    expect(git(join(work, 'shallow'), 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(join(work, 'shallow'), 'rev-parse', 'refs/remotes/origin/other')).toBe(src.first);
  });

  it('fetches and moves an existing checkout; unchanged the second time', async () => {
    const src = sourceRepo();
    const work = tempDir();
    await checkout(work, { repository: src.path, path: 'repo' });
    const second = commit(src.path, 'version.txt', 'two\n');
    const moved = await checkout(work, { repository: src.path, path: 'repo' });
    expect(moved.json).toMatchObject({ commit: second, cloned: false, changed: true });
    expect(readFileSync(join(work, 'repo/version.txt'), 'utf8')).toBe('two\n');
    const again = await checkout(work, { repository: src.path, path: 'repo', ref: 'main' });
    expect(again.json).toMatchObject({ ref: 'main', commit: second, cloned: false, changed: false });
  });

  it('refuses to overwrite local changes without force, discards them with force', async () => {
    const src = sourceRepo();
    const work = tempDir();
    await checkout(work, { repository: src.path, path: 'repo' });
    const second = commit(src.path, 'version.txt', 'two\n');
    writeFileSync(join(work, 'repo/version.txt'), 'local\n');
    const refused = await checkout(work, { repository: src.path, path: 'repo' });
    expect(refused.result.error).toMatch(/unstaged changes \(set force: true/);
    expect(readFileSync(join(work, 'repo/version.txt'), 'utf8')).toBe('local\n');
    const forced = await checkout(work, { repository: src.path, path: 'repo', force: true });
    expect(forced.json).toMatchObject({ commit: second, changed: true });
    expect(readFileSync(join(work, 'repo/version.txt'), 'utf8')).toBe('two\n');
  });

  it('refuses a target that is a file or a non-empty directory, and an unknown ref', async () => {
    const src = sourceRepo();
    const work = tempDir();
    mkdirSync(join(work, 'full'));
    writeFileSync(join(work, 'full/keep.txt'), 'keep\n');
    writeFileSync(join(work, 'file'), 'x');
    expect((await checkout(work, { repository: src.path, path: 'full' })).result.error).toBe(
      'git checkout: target directory is not a git repository and is not empty',
    );
    expect((await checkout(work, { repository: src.path, path: 'file' })).result.error).toBe(
      'git checkout: target path exists and is not a directory',
    );
    const missing = await checkout(work, { repository: src.path, path: 'r', ref: 'nope' });
    expect(missing.result.error).toBe('git checkout: ref "nope" not found');
    expect(readFileSync(join(work, 'full/keep.txt'), 'utf8')).toBe('keep\n');
  });

  it('says git is missing when no git program is on PATH', async () => {
    const work = tempDir();
    const c = ctx(work, { repository: 'x', path: 'y' }, { env: { PATH: work } });
    const result = await runGitAction('checkout', c);
    expect(result.error).toBe(
      'git checkout: the git program was not found on PATH: install git to run git.* actions',
    );
  });

  it('answers an HTTP auth challenge with the token, which appears in no argv, output or error', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await httpServer((req, res) => {
      seen.push(req.headers);
      if (!req.headers.authorization) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="x"' });
        res.end();
      } else {
        res.writeHead(403);
        res.end();
      }
    });
    const work = tempDir();
    const c = ctx(work, { repository: `${url}/repo.git`, path: 'r', token: 's3cret-token' });
    const result = await runGitAction('checkout', c);
    expect(result.exitCode).toBe(1);
    const auth = seen.map((h) => h.authorization).find((a) => a !== undefined);
    expect(Buffer.from(auth!.replace(/^Basic /, ''), 'base64').toString()).toBe('git:s3cret-token');
    expect(`${result.error}${c.out.text()}${c.err.text()}`).not.toContain('s3cret-token');
    expect(existsSync(join(work, 'r'))).toBe(false);
  });

  it('sends username and password', async () => {
    const seen: string[] = [];
    const url = await httpServer((req, res) => {
      if (req.headers.authorization) seen.push(req.headers.authorization);
      res.writeHead(req.headers.authorization ? 403 : 401, { 'WWW-Authenticate': 'Basic realm="x"' });
      res.end();
    });
    const c = ctx(tempDir(), { repository: `${url}/r.git`, path: 'r', username: 'ada', password: 'pw-123' });
    await runGitAction('checkout', c);
    expect(Buffer.from(seen[0].replace(/^Basic /, ''), 'base64').toString()).toBe('ada:pw-123');
  });

  it('kills git when the step is stopped', async () => {
    // A server that never answers: git waits until it is killed.
    const url = await httpServer(() => undefined);
    const stop = new AbortController();
    const c = ctx(tempDir(), { repository: `${url}/r.git`, path: 'r' }, { signal: stop.signal });
    const started = Date.now();
    setTimeout(() => stop.abort(), 300);
    const result = await runGitAction('checkout', c);
    expect(result.error).toBe('git checkout: stopped');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names the ssh key in GIT_SSH_COMMAND', async () => {
    const work = tempDir();
    const bin = join(work, 'bin');
    mkdirSync(bin);
    // A stand-in ssh that records how git called it.
    writeFileSync(join(bin, 'ssh'), `#!/bin/sh\necho "$@" > "${join(work, 'ssh-args')}"\nexit 1\n`, {
      mode: 0o755,
    });
    writeFileSync(
      join(work, 'id_test'),
      '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
    );
    const c = ctx(
      work,
      { repository: 'ssh://git@example.invalid/r.git', path: 'r', ssh_key_path: 'id_test' },
      { env: { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` } },
    );
    const result = await runGitAction('checkout', c);
    expect(result.error).toMatch(/^git checkout: clone failed: git exited with 128/);
    const args = readFileSync(join(work, 'ssh-args'), 'utf8');
    expect(args).toContain(`-i ${join(work, 'id_test')} -o IdentitiesOnly=yes -o BatchMode=yes`);
  });

  it('refuses a missing or passphrase-protected ssh key before running git', async () => {
    const work = tempDir();
    const missing = await checkout(work, { repository: 'ssh://h/r', path: 'r', ssh_key_path: 'nope' });
    expect(missing.result.error).toMatch(/^git checkout: load ssh key: ENOENT/);
    const header = Buffer.concat([
      Buffer.from('openssh-key-v1\0', 'latin1'),
      Buffer.from([0, 0, 0, 10]),
      Buffer.from('aes256-ctr'),
    ]).toString('base64');
    writeFileSync(
      join(work, 'locked'),
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${header}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    const locked = await checkout(work, { repository: 'ssh://h/r', path: 'r', ssh_key_path: 'locked' });
    expect(locked.result.error).toMatch(/is protected by a passphrase/);
    expect(isEncryptedKey('-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n')).toBe(true);
  });

  it.each([
    [{ path: 'p' }, 'git checkout: repository is required'],
    [{ repository: '  ', path: 'p' }, 'git checkout: repository is required'],
    [{ repository: 'r', path: '' }, 'git checkout: path is required'],
    [{ repository: 'r', path: 'p', depth: -1 }, 'git checkout: depth must be >= 0'],
    [{ repository: 'r', path: 'p', depth: '1' }, 'git checkout: depth must be an integer'],
    [{ repository: 'r', path: 'p', force: 'yes' }, 'git checkout: force must be true or false'],
    [{ repository: 'r', path: 'p', branch: 'b' }, 'git checkout: unsupported field "branch"'],
    [{ repository: 1, path: 'p' }, 'git checkout: repository must be a string'],
    [
      { repository: 'r', path: 'p', token: 't', username: 'u' },
      'git checkout: token cannot be combined with username/password',
    ],
    [
      { repository: 'r', path: 'p', ssh_key_path: 'k', password: 'x' },
      'git checkout: ssh_key_path cannot be combined with token or password',
    ],
  ])('refuses a resolved with %j and runs nothing', async (w, error) => {
    const work = tempDir();
    const c = ctx(work, w, { env: { PATH: work } });
    expect(await runGitAction('checkout', c)).toEqual({ exitCode: 1, error });
  });
});

describe('git.worktree.add and git.worktree.remove', () => {
  function repoIn(dir: string): { path: string; base: string } {
    const path = join(dir, 'repo');
    git(dir, 'init', '-q', path);
    git(path, 'symbolic-ref', 'HEAD', 'refs/heads/main');
    return { path, base: commit(path, 'base.txt', 'base\n') };
  }

  it('adds a generated branch beside the repository and removes it with its branch', async () => {
    const dir = tempDir();
    const repo = repoIn(dir);
    const add = ctx(repo.path, {}, { runId: 'run-1', stepIdentity: 'add' });
    const added = await runGitAction('worktree.add', add);
    expect(added.error).toBeNull();
    const out = added.declaredOutputs!;
    expect(out.branch).toMatch(/^dagu\/[0-9a-f]{32}$/);
    expect(out).toMatchObject({
      path: join(`${repo.path}.worktrees`, ...out.branch.split('/')),
      commit: repo.base,
      worktree_created: 'true',
      branch_created: 'true',
    });
    expect(add.out.text()).toBe('');
    // The same run and step ask for the same branch: the worktree is reused.
    const again = await runGitAction(
      'worktree.add',
      ctx(repo.path, {}, { runId: 'run-1', stepIdentity: 'add' }),
    );
    expect(again.declaredOutputs).toMatchObject({ branch: out.branch, worktree_created: 'false' });

    const removed = await runGitAction(
      'worktree.remove',
      ctx(repo.path, { branch: out.branch, delete_branch: true }),
    );
    expect(removed.declaredOutputs).toEqual({
      path: out.path,
      branch: out.branch,
      worktree_removed: 'true',
      branch_deleted: 'true',
    });
    expect(existsSync(out.path)).toBe(false);
    expect(git(repo.path, 'branch', '--list', out.branch)).toBe('');
  });

  it('fails without outputs outside a repository, and for a branch git refuses', async () => {
    const dir = tempDir();
    const outside = await runGitAction('worktree.add', ctx(dir, { branch: 'x', create_branch: true }));
    expect(outside.error).toMatch(/^git worktree.add: discover repository from/);
    expect(outside.declaredOutputs).toBeUndefined();
    const repo = repoIn(dir);
    const bad = await runGitAction(
      'worktree.add',
      ctx(repo.path, { branch: '-x', create_branch: true, path: '../wt' }),
    );
    expect(bad.error).toMatch(/invalid branch "-x"/);
    expect(existsSync(join(dir, 'wt'))).toBe(false);
  });

  it.each([
    ['worktree.add', { branch: '' }, 'git worktree.add: branch must be a non-empty string'],
    [
      'worktree.add',
      { branch: 'b', base: 'main' },
      'git worktree.add: base requires create_branch when branch is specified',
    ],
    ['worktree.add', { force: true }, 'git worktree.add: unsupported field "force"'],
    ['worktree.remove', {}, 'git worktree.remove: branch or path is required'],
    [
      'worktree.remove',
      { path: 'p', delete_branch: true },
      'git worktree.remove: delete_branch requires branch',
    ],
    ['worktree.remove', { branch: 'b', force: 'true' }, 'git worktree.remove: force must be a boolean'],
  ] as const)('%s refuses a resolved with %j', async (op, w, error) => {
    const work = tempDir();
    expect(await runGitAction(op, ctx(work, { ...w }, { env: { PATH: work } }))).toEqual({
      exitCode: 1,
      error,
    });
  });
});

async function httpServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.on('connection', (socket) => server.once('close', () => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
