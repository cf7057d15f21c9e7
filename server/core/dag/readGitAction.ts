// Reads Dagu's git actions (`action: git.checkout`, `git.worktree.add`, `git.worktree.remove`, and the legacy
// `type: git` with the operation in `command`): checks `with` as Dagu does when it loads the file (its config
// schema, then its step validator) and keeps it as written; values are resolved when the step runs.
//
// git.checkout: `repository` and `path` are required texts; `ref`, `token`, `username`, `password`,
// `ssh_key_path` and `ssh_passphrase` are texts, `depth` a whole number of at least 0, `force` a boolean; an
// ssh key does not go with a token or a password, nor a token with a username or a password.
// git.worktree.add: `branch`, `path` and `base` are non-blank texts, `create_branch` a boolean; `base` beside
// `branch` needs `create_branch: true`. git.worktree.remove: `branch` or `path` (non-blank texts), `force`,
// `delete_branch` (needs `branch`) and `force_delete_branch` (needs `delete_branch`) booleans. The worktree
// actions publish fixed outputs, so the action form refuses `output`, `outputs` and `stdout.outputs`.

import { isMap, isScalar, type Node } from 'yaml';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import type { StepExecution } from './readAction';
import { legacyOperation, refuseShellKeys } from './readLegacyOp';
import { readTextKeys } from './readWithTexts';

export const GIT_OPS = ['checkout', 'worktree.add', 'worktree.remove'] as const;
export type GitOp = (typeof GIT_OPS)[number];

/** The text keys of `git.checkout`'s `with:` (read again when the step starts, after value resolution). */
export const CHECKOUT_STRINGS = [
  'repository',
  'ref',
  'path',
  'token',
  'username',
  'password',
  'ssh_key_path',
  'ssh_passphrase',
] as const;
const CHECKOUT_KEYS: readonly string[] = [...CHECKOUT_STRINGS, 'depth', 'force'];

/** The `with` keys of each worktree operation: `s` a non-blank text, `b` a boolean. */
const WORKTREE_KEYS: Record<'worktree.add' | 'worktree.remove', Readonly<Record<string, 's' | 'b'>>> = {
  'worktree.add': { branch: 's', path: 's', create_branch: 'b', base: 's' },
  'worktree.remove': { branch: 's', path: 's', force: 'b', delete_branch: 'b', force_delete_branch: 'b' },
};

const PASSPHRASE_UNSUPPORTED =
  "Dagu's ssh_passphrase is not supported by this product (it runs the ssh program, which cannot be given a passphrase without a terminal; use a key without one, or load it into an ssh-agent)";

/** `action: git.<op>` (`op` given), or legacy `type: git` (`op` null: it is in `command`). */
export function readGitAction(
  r: DagReader,
  map: Map<string, Entry>,
  op: GitOp | null,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = 'git';
  const at = map.get('action') ?? map.get('type')!;
  const legacy = op === null;
  if (legacy) {
    const read = legacyOperation(r, map, 'git', GIT_OPS);
    if (read === null) return;
    op = read;
  }
  readGitWith(r, map, op!, legacy, withEntry, at, out);
}

function readGitWith(
  r: DagReader,
  map: Map<string, Entry>,
  op: GitOp,
  legacy: boolean,
  withEntry: Entry | undefined,
  at: Entry,
  out: StepExecution,
): void {
  const action = `git.${op}`;
  const before = r.errors.length;
  refuseShellKeys(r, map, action, legacy);
  if (op !== 'checkout' && !legacy) refuseOutputOverrides(r, map, action);

  let fields = new Map<string, Entry>();
  if (withEntry && !isNull(withEntry.value)) {
    const allowed = op === 'checkout' ? CHECKOUT_KEYS : Object.keys(WORKTREE_KEYS[op]);
    const m = r.map(withEntry, allowed, 'with');
    if (!m) return;
    fields = m;
  }
  const w: Record<string, unknown> = {};
  const whole = withEntry ?? at;
  if (op === 'checkout') readCheckoutWith(r, fields, whole, w);
  else readWorktreeWith(r, fields, op, whole, w);
  if (r.errors.length === before) out.action = { kind: 'git', op, with: w };
}

/** Dagu's worktree actions publish a fixed set of outputs: a step of the action form may not declare others. */
function refuseOutputOverrides(r: DagReader, map: Map<string, Entry>, action: string): void {
  const message = `${action} publishes fixed outputs (path, branch, ...); it takes no`;
  for (const key of ['output', 'outputs']) {
    const e = map.get(key);
    if (e) r.errorAt(e, `${message} ${key}`);
  }
  const stdout = map.get('stdout');
  if (stdout && isMap(stdout.value)) {
    const pair = stdout.value.items.find((p) => isScalar(p.key) && p.key.value === 'outputs');
    if (pair) r.error(pair.key as Node, `${stdout.field}.outputs`, `${message} stdout.outputs`);
  }
}

function readCheckoutWith(
  r: DagReader,
  fields: Map<string, Entry>,
  whole: Entry,
  w: Record<string, unknown>,
): void {
  readTextKeys(r, fields, CHECKOUT_STRINGS, w);
  const depthEntry = fields.get('depth');
  if (depthEntry && isNull(depthEntry.value)) r.errorAt(depthEntry, 'must be an integer, got nothing');
  const depth = r.integer(depthEntry, 0);
  if (depth !== undefined) w.depth = depth;
  const forceEntry = fields.get('force');
  if (forceEntry && isNull(forceEntry.value)) r.errorAt(forceEntry, 'must be true or false, got nothing');
  const force = r.boolean(forceEntry);
  if (force !== undefined) w.force = force;

  for (const key of ['repository', 'path'] as const) {
    const v = w[key];
    if (v === undefined ? !fields.has(key) : typeof v === 'string' && v.trim() === '')
      r.errorAt(fields.get(key) ?? whole, `git.checkout needs with.${key}`);
  }
  const given = (key: string) => typeof w[key] === 'string' && w[key] !== '';
  if (given('ssh_key_path') && (given('token') || given('password')))
    r.errorAt(
      fields.get('ssh_key_path')!,
      'ssh_key_path cannot be combined with token or password (use one way to authenticate)',
    );
  if (given('token') && (given('username') || given('password')))
    r.errorAt(fields.get('token')!, 'token cannot be combined with username/password');
  if (given('ssh_passphrase'))
    r.unsupported(fields.get('ssh_passphrase')!.value, 'with.ssh_passphrase', PASSPHRASE_UNSUPPORTED);
}

function readWorktreeWith(
  r: DagReader,
  fields: Map<string, Entry>,
  op: 'worktree.add' | 'worktree.remove',
  whole: Entry,
  w: Record<string, unknown>,
): void {
  for (const [key, kind] of Object.entries(WORKTREE_KEYS[op])) {
    const e = fields.get(key);
    if (!e) continue;
    const v = isScalar(e.value) ? e.value.value : undefined;
    if (kind === 's') {
      if (typeof v !== 'string' || v.trim() === '') {
        r.errorAt(e, `must be a non-empty string, got ${describe(e.value)}`);
        continue;
      }
      const text = r.string(e);
      if (text !== undefined) w[key] = text;
    } else if (typeof v !== 'boolean') {
      r.errorAt(e, `must be true or false, got ${describe(e.value)}`);
    } else {
      w[key] = v;
    }
  }
  const has = (key: string) => fields.has(key);
  if (op === 'worktree.add') {
    if (
      has('branch') &&
      has('base') &&
      w.create_branch !== true &&
      !(has('create_branch') && !('create_branch' in w))
    )
      r.errorAt(fields.get('base')!, 'with.base requires create_branch: true when branch is specified');
    return;
  }
  if (!has('branch') && !has('path')) {
    r.errorAt(whole, 'git.worktree.remove requires with.branch or with.path');
    return;
  }
  if (w.delete_branch === true && !has('branch'))
    r.errorAt(fields.get('delete_branch')!, 'with.delete_branch requires with.branch');
  if (
    w.force_delete_branch === true &&
    w.delete_branch !== true &&
    !(has('delete_branch') && !('delete_branch' in w))
  )
    r.errorAt(fields.get('force_delete_branch')!, 'with.force_delete_branch requires delete_branch: true');
}
