import { describe, expect, it } from 'vitest';
import { parseDag } from './parseDag';

/** The step's action, or the errors of a one-step DAG whose step is `step` (YAML, indented under `- `). */
function load(step: string) {
  const text = `steps:\n  - id: g\n${step
    .trim()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
  const r = parseDag(text, { file: '/srv/dags/git.yaml', defaultName: 'git' });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), action: null };
  return { errors: [] as string[], action: r.dag.steps[0].action };
}

describe('git actions at load time', () => {
  it('keeps with as written for each operation', () => {
    expect(
      load('action: git.checkout\nwith:\n  repository: "${REPO}"\n  path: src\n  depth: 1\n  force: true')
        .action,
    ).toEqual({
      kind: 'git',
      op: 'checkout',
      with: { repository: '${REPO}', path: 'src', depth: 1, force: true },
    });
    expect(load('action: git.worktree.add').action).toEqual({ kind: 'git', op: 'worktree.add', with: {} });
    expect(load('action: git.worktree.remove\nwith: {branch: b, delete_branch: true}').action).toEqual({
      kind: 'git',
      op: 'worktree.remove',
      with: { branch: 'b', delete_branch: true },
    });
  });

  it('reads the legacy type: git with the operation in command', () => {
    expect(load('type: git\ncommand: Checkout\nconfig: {repository: r, path: p}').action).toMatchObject({
      kind: 'git',
      op: 'checkout',
    });
    expect(load('type: git\ncommand: worktree.add').action).toMatchObject({ op: 'worktree.add' });
    expect(load('type: git\nconfig: {repository: r, path: p}').errors).toEqual([
      'steps[0].type: type: git needs the operation in command (checkout, worktree.add, worktree.remove)',
    ]);
    expect(load('type: git\ncommand: clone').errors).toEqual([
      'steps[0].command: unsupported git operation "clone" (use checkout, worktree.add, worktree.remove)',
    ]);
    expect(load('action: git').errors).toEqual([
      'steps[0].action: action git needs an operation: git.checkout, git.worktree.add, git.worktree.remove',
    ]);
    expect(load('action: git.worktree.move').errors).toEqual([
      'steps[0].action: unknown action "git.worktree.move" (git has git.checkout, git.worktree.add, git.worktree.remove)',
    ]);
  });

  it.each([
    ['action: git.checkout', 'steps[0].action: git.checkout needs with.repository'],
    ['action: git.checkout\nwith: {path: p}', 'steps[0].with: git.checkout needs with.repository'],
    [
      'action: git.checkout\nwith: {repository: " ", path: p}',
      'steps[0].with.repository: git.checkout needs with.repository',
    ],
    ['action: git.checkout\nwith: {repository: r}', 'steps[0].with: git.checkout needs with.path'],
    [
      'action: git.checkout\nwith: {repository: 42, path: p}',
      'steps[0].with.repository: must be a string, got a number 42',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, ref: ~}',
      'steps[0].with.ref: must be a string, got nothing',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, depth: -1}',
      'steps[0].with.depth: must be at least 0, got -1',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, depth: "1"}',
      'steps[0].with.depth: must be an integer, got a string "1"',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, force: "yes"}',
      'steps[0].with.force: must be true or false, got a string "yes"',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, branch: b}',
      'steps[0].with.branch: unknown key "branch" (allowed: repository, ref, path, token, username, password, ssh_key_path, ssh_passphrase, depth, force)',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, token: t, username: u}',
      'steps[0].with.token: token cannot be combined with username/password',
    ],
    [
      'action: git.checkout\nwith: {repository: r, path: p, ssh_key_path: k, token: t}',
      'steps[0].with.ssh_key_path: ssh_key_path cannot be combined with token or password (use one way to authenticate)',
    ],
    ['action: git.checkout\nwith: [repository]', 'steps[0].with: with must be a map, got a list'],
    [
      'action: git.checkout\nrun: echo\nwith: {repository: r, path: p}',
      'steps[0].run: action git.checkout does not take run',
    ],
    [
      'action: git.checkout\ncommand: checkout\nwith: {repository: r, path: p}',
      'steps[0].command: action git.checkout does not take command',
    ],
    [
      'action: git.worktree.add\nwith: {path: "  "}',
      'steps[0].with.path: must be a non-empty string, got a string "  "',
    ],
    [
      'action: git.worktree.add\nwith: {branch: ~}',
      'steps[0].with.branch: must be a non-empty string, got nothing',
    ],
    [
      'action: git.worktree.add\nwith: {branch: b, base: main, create_branch: false}',
      'steps[0].with.base: with.base requires create_branch: true when branch is specified',
    ],
    [
      'action: git.worktree.add\noutput: OUT',
      'steps[0].output: git.worktree.add publishes fixed outputs (path, branch, ...); it takes no output',
    ],
    [
      'action: git.worktree.remove\nstdout: {outputs: {a: {field: x}}}',
      'steps[0].stdout.outputs: git.worktree.remove publishes fixed outputs (path, branch, ...); it takes no stdout.outputs',
    ],
    ['action: git.worktree.remove', 'steps[0].action: git.worktree.remove requires with.branch or with.path'],
  ])('refuses %j', (step, error) => {
    expect(load(step).errors).toContain(error);
  });

  it('refuses ssh_passphrase as not supported', () => {
    const text =
      'steps:\n  - action: git.checkout\n    with: {repository: r, path: p, ssh_key_path: k, ssh_passphrase: pw}\n';
    const r = parseDag(text, { file: '/srv/dags/git.yaml', defaultName: 'git' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ field: 'with.ssh_passphrase', kind: 'unsupported' });
  });
});
