// The `with` of a git action once its values are resolved, checked again as Dagu's executor does when the
// step starts: a reference may have resolved to an empty text. The DAG reader (server/core/dag/
// readGitAction.ts) has already refused wrong keys and types, so what is checked here is what only a value
// tells.

import { CHECKOUT_STRINGS } from '../../core/dag/readGitAction';

export interface CheckoutConfig {
  repository: string;
  ref: string;
  path: string;
  depth: number;
  force: boolean;
  token: string;
  username: string;
  password: string;
  sshKeyPath: string;
  sshPassphrase: string;
}

export interface WorktreeConfig {
  branch: string | null;
  path: string | null;
  base: string | null;
  createBranch: boolean;
  force: boolean;
  deleteBranch: boolean;
  forceDeleteBranch: boolean;
}

type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

const CHECKOUT_KEYS = new Set([
  'repository',
  'ref',
  'path',
  'depth',
  'force',
  'token',
  'username',
  'password',
  'ssh_key_path',
  'ssh_passphrase',
]);

export function decodeCheckout(w: Record<string, unknown>): Decoded<CheckoutConfig> {
  for (const key of Object.keys(w))
    if (!CHECKOUT_KEYS.has(key)) return fail(`git checkout: unsupported field ${JSON.stringify(key)}`);
  const text = (key: string): string | Error => {
    const v = w[key];
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : new Error(`git checkout: ${key} must be a string`);
  };
  const fields: Record<string, string> = {};
  for (const key of CHECKOUT_STRINGS) {
    const v = text(key);
    if (v instanceof Error) return fail(v.message);
    fields[key] = v;
  }
  const depth = w.depth ?? 0;
  if (typeof depth !== 'number' || !Number.isInteger(depth))
    return fail('git checkout: depth must be an integer');
  if (depth < 0) return fail('git checkout: depth must be >= 0');
  const force = w.force ?? false;
  if (typeof force !== 'boolean') return fail('git checkout: force must be true or false');
  if (fields.repository.trim() === '') return fail('git checkout: repository is required');
  if (fields.path.trim() === '') return fail('git checkout: path is required');
  if (fields.ssh_key_path !== '' && (fields.token !== '' || fields.password !== ''))
    return fail('git checkout: ssh_key_path cannot be combined with token or password');
  if (fields.token !== '' && (fields.username !== '' || fields.password !== ''))
    return fail('git checkout: token cannot be combined with username/password');
  if (fields.ssh_passphrase !== '')
    return fail(
      'git checkout: ssh_passphrase is not supported by this product (use a key without a passphrase, or an ssh-agent)',
    );
  return {
    ok: true,
    value: {
      repository: fields.repository.trim(),
      ref: fields.ref.trim(),
      path: fields.path.trim(),
      depth,
      force,
      token: fields.token,
      username: fields.username,
      password: fields.password,
      sshKeyPath: fields.ssh_key_path.trim(),
      sshPassphrase: fields.ssh_passphrase,
    },
  };
}

const WORKTREE_KEYS: Record<'worktree.add' | 'worktree.remove', Readonly<Record<string, 's' | 'b'>>> = {
  'worktree.add': { branch: 's', path: 's', create_branch: 'b', base: 's' },
  'worktree.remove': { branch: 's', path: 's', force: 'b', delete_branch: 'b', force_delete_branch: 'b' },
};

export function decodeWorktree(
  op: 'worktree.add' | 'worktree.remove',
  w: Record<string, unknown>,
): Decoded<WorktreeConfig> {
  const kinds = WORKTREE_KEYS[op];
  const strings: Record<string, string | null> = {};
  const flags: Record<string, boolean> = {};
  for (const [key, v] of Object.entries(w)) {
    const kind = Object.hasOwn(kinds, key) ? kinds[key] : undefined;
    if (kind === undefined) return fail(`git ${op}: unsupported field ${JSON.stringify(key)}`);
    if (kind === 's') {
      if (typeof v !== 'string' || v.trim() === '')
        return fail(`git ${op}: ${key} must be a non-empty string`);
      strings[key] = v.trim();
    } else {
      if (typeof v !== 'boolean') return fail(`git ${op}: ${key} must be a boolean`);
      flags[key] = v;
    }
  }
  const cfg: WorktreeConfig = {
    branch: strings.branch ?? null,
    path: strings.path ?? null,
    base: strings.base ?? null,
    createBranch: flags.create_branch ?? false,
    force: flags.force ?? false,
    deleteBranch: flags.delete_branch ?? false,
    forceDeleteBranch: flags.force_delete_branch ?? false,
  };
  if (op === 'worktree.add') {
    if (cfg.branch !== null && cfg.base !== null && !cfg.createBranch)
      return fail(`git ${op}: base requires create_branch when branch is specified`);
  } else {
    if (cfg.branch === null && cfg.path === null) return fail(`git ${op}: branch or path is required`);
    if (cfg.deleteBranch && cfg.branch === null) return fail(`git ${op}: delete_branch requires branch`);
    if (cfg.forceDeleteBranch && !cfg.deleteBranch)
      return fail(`git ${op}: force_delete_branch requires delete_branch`);
  }
  return { ok: true, value: cfg };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
