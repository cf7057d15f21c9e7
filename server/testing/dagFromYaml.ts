// DAGs for unit tests, written as the few YAML lines that matter to the test.

import { parseDag } from '../core/dag/parseDag';
import type { DagSpec } from '../core/types';

/** A DAG named `name` from top-level YAML lines (`schedule: "* * * * *"`); one step unless they add steps. */
export function dagFromYaml(name: string, yaml = ''): DagSpec {
  const steps = /^steps:/m.test(yaml) ? '' : `\nsteps:\n  - name: work\n    command: echo ${name}\n`;
  const text = `${yaml}${steps}`;
  const r = parseDag(text, { file: `/dags/${name}.yaml`, defaultName: name });
  if (!r.ok) throw new Error(`test DAG ${name} is invalid: ${JSON.stringify(r.errors)}`);
  return r.dag;
}
