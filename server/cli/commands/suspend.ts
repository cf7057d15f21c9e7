// `dagu suspend <dag>` and `dagu resume-schedule <dag>`: the same operation as the API's
// POST /api/v1/dags/:name/suspend. Dagu has no such commands (its console and API do it); `resume` already
// names re-running a finished run here, hence `resume-schedule`.

import { setDagSuspended } from '../../api/operations';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';
import { cliServices } from '../openControlPlane';

export async function suspendCommand(dag: string, opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const r = await setDagSuspended(await cliServices(config, logger), dag, true, 'cli');
  process.stdout.write(
    r.changed
      ? `suspended the schedule of ${r.name}: no slot of it runs until dagu resume-schedule ${r.name}\n`
      : `the schedule of ${r.name} was already suspended${r.suspended_at ? ` (since ${r.suspended_at})` : ''}\n`,
  );
  return EXIT_OK;
}

export async function resumeScheduleCommand(dag: string, opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const r = await setDagSuspended(await cliServices(config, logger), dag, false, 'cli');
  process.stdout.write(
    r.changed
      ? `resumed the schedule of ${r.name}: it runs from its next slot (the suspended ones are not replayed)\n`
      : `the schedule of ${r.name} was not suspended\n`,
  );
  return EXIT_OK;
}
