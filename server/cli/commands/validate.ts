// `dagu validate`: checks DAG files and prints every error at once (file:line:column: field: message), with
// Dagu's stricter document rules (ParseDagOptions.strict) and its deprecation warnings. Exit 2 on any error,
// including a Dagu feature this product does not run (errors of kind `unsupported`).

import { formatDagError } from '../../core/dag/dagError';
import { listDagFiles, loadDag } from '../../store/dagCatalog';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_USAGE } from '../exit';
import { cliDagsInStep } from '../dagsInStep';
import { printErr, printOut } from '../stdio';
import { dagsWhere } from '../loadDagOrThrow';

export async function validateCommand(dags: string[], opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  await cliDagsInStep(config, logger);
  const targets = dags.length > 0 ? dags : (await listDagFiles(config.paths.dags_dir)).map((d) => d.file);
  let bad = 0;
  for (const target of targets) {
    const r = await loadDag(config.paths.dags_dir, target, { strict: true });
    if (r.ok) {
      printOut(`ok  ${r.dag.name} (${r.dag.file ?? target})\n`);
      // Warnings (deprecated spellings, ...) go to stderr, as Dagu logs them: stdout lists the DAGs.
      for (const w of r.warnings) printErr(`${r.dag.file ?? target}: warning: ${w}\n`);
    } else if ('notFound' in r) {
      bad++;
      printErr(`dagu: DAG ${JSON.stringify(target)} not found in ${dagsWhere(config)}\n`);
    } else {
      bad++;
      for (const e of r.errors) printErr(`${formatDagError(e)}\n`);
    }
  }
  if (targets.length === 0) printOut(`no DAGs in ${dagsWhere(config)}\n`);
  return bad > 0 ? EXIT_USAGE : EXIT_OK;
}
