// `dagu resume`: a new attempt of a finished run that runs again only the steps that did not succeed, in the
// foreground like `dagu retry`; a DAG that belongs on the workers is dispatched to them (operation `resume`).

import { isResumable } from '../../runner/resumeRun';
import { cliContext, type GlobalOptions } from '../context';
import { UsageError } from '../exit';
import { runCommandStores } from './dispatchClient';
import { nextAttempt, runNamed } from './retry';
import { cliControlPlane } from '../openControlPlane';

type Opts = GlobalOptions & { quiet?: boolean; detach?: boolean; runId?: string };

/** `dagu resume <run-id>`, or `dagu resume --run-id ID <dag>` in the form of Dagu's `retry`. */
export async function resumeCommand(word: string, opts: Opts): Promise<number> {
  const ctx = cliContext(opts, { component: 'runner' });
  const { config } = ctx;
  const stores = runCommandStores(config, ctx.logger, await cliControlPlane(config, ctx.logger));
  const previous = await runNamed(ctx, stores, word, opts, 'resume');
  const runId = previous.run_id;
  if (previous.status === 'succeeded')
    throw new UsageError(
      `run ${runId} succeeded; there is nothing to resume (use dagu retry to run it again)`,
    );
  if (!isResumable(previous))
    throw new UsageError(`run ${runId} is ${previous.status}; only a finished run can be resumed`);
  return nextAttempt(ctx, stores, previous, 'resume', opts);
}
