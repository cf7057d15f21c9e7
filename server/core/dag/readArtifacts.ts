// Reads `artifacts: {enabled, dir}` and works out, as Dagu does, whether a run of the DAG gets an artifacts
// directory: when `enabled` says so, and by itself (with `enabled` left out) when the file refers to
// DAG_RUN_ARTIFACTS_DIR (in any of its forms, anywhere in the document), uses an `artifact.*` action or sends a
// stream to an artifact (`stdout: {artifact}`). `enabled: false` with an artifact action or output is an error.

import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { ArtifactsSpec, DagSpec, StepSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import { refersToArtifactsDir } from './artifactPath';
import { customTemplatesUseArtifacts } from './customSteps';

/** Whether any text value of the document (keys aside) refers to the artifacts directory. */
function documentRefersToArtifactsDir(node: Node | null): boolean {
  if (node === null) return false;
  if (isScalar(node)) return typeof node.value === 'string' && refersToArtifactsDir(node.value);
  // Indexed loops: this visits every node of the file, mostly in V8's interpreter (a cold `dagu validate`),
  // where a callback would be a new closure for every map and list.
  if (isMap(node)) {
    for (let i = 0; i < node.items.length; i++) {
      if (documentRefersToArtifactsDir(node.items[i].value as Node | null)) return true;
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      if (documentRefersToArtifactsDir(node.items[i] as Node | null)) return true;
    }
  }
  return false;
}

/** Every step of the DAG: its steps, handlers and foreach bodies. */
function allSteps(dag: Pick<DagSpec, 'steps' | 'handler_on'>): StepSpec[] {
  const out: StepSpec[] = [];
  const visit = (s: StepSpec | null | undefined) => {
    if (!s) return;
    out.push(s);
    if (s.action?.kind === 'foreach') s.action.foreach.steps.forEach(visit);
  };
  dag.steps.forEach(visit);
  Object.values(dag.handler_on ?? {}).forEach((h) => visit(h as StepSpec | null));
  return out;
}

/** The DAG's `artifacts` after the auto-enable rules; undefined: the run gets no artifacts directory. */
export function readArtifacts(
  r: DagReader,
  entry: Entry | undefined,
  root: Node,
  dag: Pick<DagSpec, 'steps' | 'handler_on'>,
): ArtifactsSpec | undefined {
  const steps = allSteps(dag);
  // A custom action's template counts even when no step calls it, as in Dagu.
  const templates = customTemplatesUseArtifacts(r);
  const usesAction = templates.action || steps.some((s) => s.action?.kind === 'artifact');
  const usesOutput =
    templates.output || steps.some((s) => s.stdout_artifact !== undefined || s.stderr_artifact !== undefined);
  const auto = usesAction || usesOutput || documentRefersToArtifactsDir(root);
  let enabled: boolean | undefined;
  let dir: string | null = null;
  if (entry && !isNull(entry.value)) {
    if (!isMap(entry.value)) {
      r.errorAt(entry, `must be a map with enabled and dir, got ${describe(entry.value)}`);
      return auto ? { enabled: true, dir: null } : undefined;
    }
    const m = r.map(entry, ['enabled', 'dir'], 'artifacts');
    const enabledEntry = m?.get('enabled');
    if (enabledEntry && isNull(enabledEntry.value))
      r.errorAt(enabledEntry, 'must be true or false, got nothing');
    enabled = r.boolean(enabledEntry);
    const dirEntry = m?.get('dir');
    if (dirEntry && !isNull(dirEntry.value)) {
      const text = r.string(dirEntry);
      if (text !== undefined && text.trim() !== '') dir = text.trim();
    }
    if (enabled === false && usesAction)
      r.errorAt(enabledEntry!, 'artifact actions require artifacts.enabled to be true');
    else if (enabled === false && usesOutput)
      r.errorAt(enabledEntry!, 'artifact outputs require artifacts.enabled to be true');
  }
  const on = enabled ?? auto;
  if (!on && dir === null && enabled === undefined) return undefined;
  return { enabled: on, dir };
}
