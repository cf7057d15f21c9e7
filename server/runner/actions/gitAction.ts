// Dagu's git actions (`git.checkout`, `git.worktree.add`, `git.worktree.remove`; legacy `type: git` with the
// operation in `command`), run with the `git` program: the resolved `with` is checked again (a reference may
// have resolved to an empty text), then the operation runs. A checkout prints one JSON line; a worktree action
// prints nothing and publishes its fixed outputs. Any failure fails the step with its reason.

import { decodeCheckout, decodeWorktree } from './gitConfig';
import { CheckoutError, runCheckout } from './gitCheckout';
import { GitMissing, GitStopped } from './gitExec';
import { runWorktree, WorktreeError } from './gitWorktree';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

export type GitOp = 'checkout' | 'worktree.add' | 'worktree.remove';

export async function runGitAction(op: GitOp, ctx: ActionContext): Promise<ActionResult> {
  try {
    if (op === 'checkout') {
      const cfg = decodeCheckout(ctx.with);
      if (!cfg.ok) return actionFailed(cfg.error);
      await runCheckout(cfg.value, ctx);
      return ACTION_OK;
    }
    const cfg = decodeWorktree(op, ctx.with);
    if (!cfg.ok) return actionFailed(cfg.error);
    const outputs = await runWorktree(op, cfg.value, ctx);
    return {
      ...ACTION_OK,
      declaredOutputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, String(v)])),
    };
  } catch (e) {
    if (e instanceof GitMissing) return actionFailed(`git ${op}: ${e.message}`);
    if (e instanceof GitStopped) return actionFailed(`git ${op}: stopped`);
    if (e instanceof CheckoutError || e instanceof WorktreeError) return actionFailed(e.message);
    return actionFailed(`git ${op}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
