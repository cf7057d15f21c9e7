// `dagu dry <dag> [-- params]`: what `dagu start` would do, without doing it. The DAG is loaded and checked as
// start checks it, the caller's params are laid over the declared ones and checked, and the steps are listed
// in the order they would start. No command runs and, as in Dagu, no run is recorded; Dagu also writes a
// log of its simulated run, this writes nothing at all.

import { resolveRunParams } from '../../core/params';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { overrideDagName } from '../dagNameOverride';
import { loadDagOrThrow } from '../loadDagOrThrow';
import { cliDagsInStep } from '../dagsInStep';
import { dryPlan } from './dryPlan';
import { previewBuild } from '../../runner/buildPreview';
import { localMaterializations } from '../localMaterializations';
import { cliParams, type ParamFlags } from './start';

export async function dryCommand(
  dagArg: string,
  words: string[],
  opts: GlobalOptions & ParamFlags & { name?: string; reuse?: boolean },
) {
  const params = cliParams('dry', dagArg, words, opts);
  const { config, logger } = cliContext(opts, { component: 'cli' });
  await cliDagsInStep(config, logger);
  const loaded = await loadDagOrThrow(config, dagArg);
  const dag = opts.name !== undefined ? overrideDagName(loaded, opts.name) : loaded;
  const resolved = resolveRunParams(dag.params, params, dag.param_schema);
  if (!resolved.ok) throw new UsageError(`DAG ${dag.name}: ${resolved.error}`);
  // A build DAG: each step's decision, read from this host's manifests and files; nothing is locked or written.
  let build: Awaited<ReturnType<typeof previewBuild>> | undefined;
  if (dag.type === 'build') {
    try {
      build = await previewBuild(dag, resolved.list, {
        store: localMaterializations(config),
        baseEnv: process.env,
        envPassthrough: { names: config.env_passthrough, prefixes: config.env_passthrough_prefixes },
        noReuse: opts.reuse === false,
      });
    } catch (err) {
      throw new UsageError(`DAG ${dag.name}: ${(err as Error).message}`, EXIT_RUN_FAILED);
    }
  }
  const plan = dryPlan(dag, resolved.list, build);
  if (!plan.ok) throw new UsageError(plan.error, EXIT_RUN_FAILED);
  process.stdout.write(`${plan.lines.join('\n')}\n`);
  return EXIT_OK;
}
