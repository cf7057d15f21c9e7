// Declared step outputs (Dagu's `outputs:`): every attempt gets an empty `$DAGU_OUTPUT_FILE`; after the
// attempt succeeds the file is read as `name=value` lines and `name<<DELIM` ... `DELIM` blocks. Every name
// written must be declared, every declared name written once, and a `json` output must hold valid JSON;
// anything else fails the attempt. Stdout is never an output.
// Also the runner's side of structured outputs (object `output:`, `stdout.outputs`): the sources
// core/structuredOutput.ts reads, and publishing what it evaluates on the step's status.

import { isAbsolute, resolve as resolvePath } from 'node:path';
import { resolveValue, type ValueScope } from '../core/dag/values';
import { readSchemaStdout } from '../core/outputSchema';
import {
  evaluateStdoutOutputs,
  evaluateStructuredOutput,
  type Outcome,
  type OutputSources,
} from '../core/structuredOutput';
import type { DeclaredOutputSpec, StepSpec, StepStatus } from '../core/types';
import * as files from '../store/fileCalls';
import type { OutputCapture } from './outputCapture';

/** The outcome of reading an output file: the values by name, or why the file is not acceptable. */
export type ParsedOutputs = { ok: true; values: Record<string, string> } | { ok: false; error: string };

const DELIMITER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses the text of an output file against the step's declarations (none = nothing may be written).
 * Line endings are normalised to `\n`; a trailing newline ends the last record.
 */
export function parseStepOutputs(text: string, declared: readonly DeclaredOutputSpec[]): ParsedOutputs {
  const types = new Map(declared.map((d) => [d.name, d.type]));
  const values: Record<string, string> = Object.create(null);
  const normalised = text.replace(/\r\n?/g, '\n');
  const lines = normalised === '' ? [] : normalised.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();

  const record = (name: string, value: string): string | null => {
    const type = types.get(name);
    if (type === undefined) return `undeclared step output ${JSON.stringify(name)}`;
    if (Object.hasOwn(values, name)) return `duplicate step output ${JSON.stringify(name)}`;
    if (type === 'json' && !isJson(value)) return `step output ${JSON.stringify(name)} is not valid JSON`;
    values[name] = value;
    return null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const at = i + 1;
    if (line === '') return fail(`empty line at line ${at} is not a valid step output record`);
    const eq = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    // `name<<DELIM` opens a block unless an `=` comes first (`token=a<<b` is a one-line value).
    if (heredoc >= 0 && (eq < 0 || heredoc < eq)) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (name === '') return fail(`missing output name at line ${at}`);
      if (!DELIMITER.test(delimiter)) return fail(`invalid multiline delimiter at line ${at}`);
      let end = i + 1;
      while (end < lines.length && lines[end] !== delimiter) end++;
      if (end >= lines.length) return fail(`unclosed multiline output ${JSON.stringify(name)}`);
      const problem = record(name, lines.slice(i + 1, end).join('\n'));
      if (problem) return fail(problem);
      i = end;
      continue;
    }
    if (eq < 0) return fail(`invalid step output record at line ${at}`);
    if (eq === 0) return fail(`missing output name at line ${at}`);
    const problem = record(line.slice(0, eq), line.slice(eq + 1));
    if (problem) return fail(problem);
  }

  const missing = declared.find((d) => !Object.hasOwn(values, d.name));
  if (missing) return fail(`declared step output ${JSON.stringify(missing.name)} was not emitted`);
  return { ok: true, values };
}

/**
 * Reads and parses an attempt's output file. More than `maxBytes` bytes, bytes that are not UTF-8, or a
 * file that cannot be read fail it.
 */
export async function readStepOutputs(
  path: string,
  declared: readonly DeclaredOutputSpec[],
  maxBytes: number,
): Promise<ParsedOutputs> {
  let fd: number;
  try {
    fd = await files.open(path, 'r');
  } catch (err) {
    return fail(`cannot read the output file: ${(err as Error).message}`);
  }
  try {
    const size = (await files.fstat(fd)).size;
    if (size > maxBytes) return fail(`step outputs exceeded maximum size limit of ${maxBytes} bytes`);
    const buf = Buffer.alloc(size);
    let n = 0;
    for (let got = -1; n < size && got !== 0; n += got) got = await files.readAt(fd, buf.subarray(n), n);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, n));
    } catch {
      return fail('step output file is not valid UTF-8');
    }
    return parseStepOutputs(text, declared);
  } finally {
    await files.close(fd).catch(() => undefined);
  }
}

function fail(error: string): ParsedOutputs {
  return { ok: false, error };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What one attempt captured for structured outputs: null when the stream was not captured. */
export interface AttemptCaptures {
  stdout: OutputCapture | null;
  stderr: OutputCapture | null;
}

/** Whether a step publishes structured outputs (then its streams may need capturing). */
export function hasStructuredOutputs(step: StepSpec): boolean {
  return (
    (step.structured_output?.length ?? 0) > 0 ||
    step.stdout_outputs !== undefined ||
    step.output_schema !== undefined
  );
}

/**
 * Evaluates a step's object `output:` and `stdout.outputs` after an attempt (whether or not it failed, as Dagu
 * does) and publishes them on `status`: `output_value` (the object output's JSON) and `published_outputs`
 * (its values, then stdout.outputs' values, which replace them). Returns the step's error when evaluation fails.
 */
export async function publishStructuredOutputs(
  step: StepSpec,
  status: StepStatus,
  captures: AttemptCaptures,
  o: { scope: ValueScope; cwd: string; maxBytes: number; signal: AbortSignal; failed?: boolean },
): Promise<string | null> {
  delete status.output_value;
  delete status.published_outputs;
  const src = outputSources(captures, o);
  // output_schema first: stdout must be one JSON value the schema accepts. A failed command keeps its own
  // error (as in Dagu); without an object output, the checked value is the step's output.
  let schemaValue: string | null = null;
  if (step.output_schema) {
    const r = await checkOutputSchema(step.output_schema, src.stdout, o.maxBytes);
    if (r.ok) schemaValue = r.value;
    else if (!o.failed) return `failed to validate output_schema: ${r.error}`;
  }
  if (step.output_schema && !(step.structured_output && step.structured_output.length > 0)) {
    status.output_value = schemaValue;
  }
  if (step.structured_output && step.structured_output.length > 0) {
    const r = await evaluateStructuredOutput(step.structured_output, src);
    if (!r.ok) return `failed to evaluate structured output: ${r.error}`;
    status.output_value = r.value.json;
    status.published_outputs = r.value.values;
  }
  if (step.stdout_outputs) {
    const r = await evaluateStdoutOutputs(step.stdout_outputs, src);
    if (!r.ok) return `failed to evaluate stdout outputs: ${r.error}`;
    status.published_outputs = { ...r.value };
  }
  return null;
}

/** Stdout checked against an output_schema: the value as compact JSON, or why it is refused (never quoting it). */
async function checkOutputSchema(
  schema: Record<string, unknown>,
  stdout: Outcome<string>,
  maxBytes: number,
): Promise<Outcome<string>> {
  if (!stdout.ok) return stdout;
  const read = readSchemaStdout(stdout.value);
  if (!read.ok) return read;
  const { compileSchema } = await import('../core/jsonSchema');
  const compiled = compileSchema(schema, { useDefaults: false, dataVar: 'stdout' });
  if (!compiled.ok) return compiled;
  if (compiled.check(read.value) !== null)
    return { ok: false, error: 'stdout JSON does not match output_schema' };
  const json = JSON.stringify(read.value);
  if (Buffer.byteLength(json) > maxBytes) {
    return { ok: false, error: `output exceeded maximum size limit of ${maxBytes} bytes` };
  }
  return { ok: true, value: json };
}

function outputSources(
  captures: AttemptCaptures,
  o: { scope: ValueScope; cwd: string; maxBytes: number; signal: AbortSignal },
): OutputSources {
  const stream = (c: OutputCapture | null) =>
    c === null
      ? { ok: true as const, value: '' }
      : c.exceeded
        ? { ok: false as const, error: `output exceeded maximum size limit of ${c.maxBytes} bytes` }
        : { ok: true as const, value: c.value() };
  return {
    stdout: stream(captures.stdout),
    stderr: stream(captures.stderr),
    maxBytes: o.maxBytes,
    resolveText: (text) => resolveValue(text, o.scope, 'structuredOutput'),
    readFile: async (path) => {
      const full = isAbsolute(path) ? path : resolvePath(o.cwd, path);
      try {
        return { ok: true, value: await readLimited(full, o.maxBytes) };
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
    },
    selectExpression: async (value, expression) => {
      let outcome;
      try {
        // Loaded here: jq (a worker thread and its WebAssembly) is for the rare select that is not a path.
        const { runJq } = await import('./actions/jqRun');
        outcome = await runJq(expression, JSON.stringify(value ?? null), o.signal);
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
      if (outcome.exitCode !== 0) {
        return { ok: false, error: outcome.stderr.trim() || `jq exited with code ${outcome.exitCode}` };
      }
      const first = outcome.stdout.split('\n').find((line) => line !== '');
      if (first === undefined) return { ok: false, error: 'the expression gave no value' };
      return { ok: true, value: JSON.parse(first) as unknown };
    },
  };
}

/**
 * A file's text, refused when it holds more than `maxBytes` bytes. Read in chunks up to one byte past the
 * limit, whatever its size says: a device such as /dev/zero reports 0 and never ends.
 */
async function readLimited(path: string, maxBytes: number): Promise<string> {
  const fd = await files.open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(Math.min(64 * 1024, maxBytes + 1 - total));
      const got = await files.readAt(fd, buf, total);
      if (got === 0) break;
      chunks.push(buf.subarray(0, got));
      total += got;
      if (total > maxBytes) throw new Error(`output exceeded maximum size limit of ${maxBytes} bytes`);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await files.close(fd).catch(() => undefined);
  }
}
