// Dagu's `template.render` action (legacy `type: template`): the step's script rendered as a Go
// text/template with `with.data` as dot, `missingkey=error` and Dagu's function map, written to stdout or, with
// `with.output`, to a file (relative to the step's working directory; parent directories are created and the
// file is replaced atomically, mode 0600). `with.template_ref`, already resolved, stands in for a missing script.

import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { renderTemplate, TemplateExecError, TemplateParseError } from '../../core/goTemplate';
import { writeFileAtomic } from '../../store/fsutil';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

export async function runTemplateAction(ctx: ActionContext): Promise<ActionResult> {
  let text = ctx.script;
  if (text === null || text === '') {
    const ref = ctx.with.template_ref;
    if (ref === undefined) return actionFailed('script field is required');
    if (typeof ref !== 'string') return actionFailed('with.template_ref must resolve to a string');
    // A reference still as written did not resolve (Dagu fails the step the same way).
    if (/^\$\{[^}]*\}$/.test(ref))
      return actionFailed(`with.template_ref: ${ref} did not resolve to a value`);
    if (ref === '') return actionFailed('with.template_ref resolved to an empty template');
    text = ref;
  }
  const data = ctx.with.data ?? {};
  if (typeof data !== 'object' || Array.isArray(data) || data === null)
    return actionFailed("template: 'data' expected a map");
  const output = ctx.with.output;
  if (output !== undefined && output !== null && typeof output !== 'string' && typeof output !== 'number')
    return actionFailed("template: 'output' expected a string");

  let rendered: string;
  try {
    rendered = renderTemplate(text, data);
  } catch (e) {
    if (e instanceof TemplateParseError) return actionFailed(`template: parse error: ${e.message}`);
    if (e instanceof TemplateExecError) return actionFailed(`template: execution error: ${e.message}`);
    throw e;
  }

  const file = output === undefined || output === null ? '' : String(output);
  // A reference left as written (`${DAG_RUN_ARTIFACTS_DIR}`, a misspelt name) would make a path of its text.
  const unresolved = /\$\{[^}]*\}/.exec(file);
  if (unresolved) return actionFailed(`template: with.output: ${unresolved[0]} did not resolve to a value`);
  if (file === '') {
    await sinkWriter(ctx.stdout)(rendered);
    return ACTION_OK;
  }
  const path = isAbsolute(file) ? file : join(ctx.workingDir, file);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o750 });
  } catch (e) {
    return actionFailed(`template: failed to create output directory: ${(e as Error).message}`);
  }
  try {
    await writeFileAtomic(path, rendered, { mode: 0o600 });
  } catch (e) {
    return actionFailed(`template: failed to write output file: ${(e as Error).message}`);
  }
  return ACTION_OK;
}
