// A Go text/template engine for Dagu's `template.render` action: parse once (a parse error is what `dagu
// validate` reports), then execute against the step's data with `missingkey=error` and Dagu's function map.
// Pure: no I/O.

import { BUILTINS } from './builtins';
import { executeTemplate, type GoFunction } from './exec';
import { parseTemplate, type TemplateSet } from './parse';
import { daguFunctions, UNSUPPORTED_FUNCTIONS } from './sprig';

export { TemplateExecError } from './exec';
export { TemplateParseError } from './parse';
export { BLOCKED_FUNCTIONS, UNSUPPORTED_FUNCTIONS } from './sprig';

let functions: ReadonlyMap<string, GoFunction> | null = null;

/** text/template's functions with Dagu's map over them (a name in both is Dagu's, as in Go). */
export function templateFunctions(): ReadonlyMap<string, GoFunction> {
  functions ??= new Map(Object.entries({ ...BUILTINS, ...daguFunctions() }));
  return functions;
}

const unsupported = new Set(UNSUPPORTED_FUNCTIONS);

/** Parses a template; throws TemplateParseError with Go's text ("template: <name>:<line>: ..."). */
export function compileTemplate(text: string, name = 'template'): TemplateSet {
  const funcs = templateFunctions();
  return parseTemplate(text, name, {
    hasFunction: (f) => funcs.has(f),
    unsupportedFunction: (f) => unsupported.has(f),
  });
}

/** Renders a template with `data` as dot; throws TemplateParseError or TemplateExecError. */
export function renderTemplate(text: string, data: unknown, name = 'template'): string {
  return executeTemplate(compileTemplate(text, name), templateFunctions(), data);
}

let customStepFunctions: ReadonlyMap<string, GoFunction> | null = null;

/**
 * The functions of a custom step's template strings (Dagu's `actions:` and `step_types:`): Dagu's function map
 * and `json`, which writes its argument as JSON (Go's json.Marshal: sorted keys, HTML characters escaped).
 */
function stepTemplateFunctions(): ReadonlyMap<string, GoFunction> {
  if (customStepFunctions) return customStepFunctions;
  const all = new Map(templateFunctions());
  all.set('json', all.get('mustToJson')!);
  customStepFunctions = all;
  return all;
}

/** Parses a custom step's template string; throws TemplateParseError with Go's text. */
export function compileStepTemplate(text: string, name: string): TemplateSet {
  const funcs = stepTemplateFunctions();
  return parseTemplate(text, name, {
    hasFunction: (f) => funcs.has(f),
    unsupportedFunction: (f) => unsupported.has(f),
  });
}

/** Renders a parsed custom step template string with `data` as dot; throws TemplateExecError. */
export function executeStepTemplate(set: TemplateSet, data: unknown): string {
  return executeTemplate(set, stepTemplateFunctions(), data);
}
