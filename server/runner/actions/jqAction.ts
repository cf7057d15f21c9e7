// The `jq` step type (`action: jq.filter`, legacy `type: jq`): runs a jq filter over `with.data`, the file
// `with.input`, or the legacy `script` JSON, and prints each result as Dagu does: JSON indented with four
// spaces (keys sorted, as Go writes maps), or with `raw` strings unquoted. As in Dagu, a filter that fails
// while running reports the error on stderr and the step still succeeds; one that does not compile fails.

import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { goJson } from './goJson';
import { runJq } from './jqRun';
import { sinkWriter, type SinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';
import { readBool, readString, WithFieldError } from './withValues';

const JQ_COMPILE_ERROR = 3;
const JQ_RUNTIME_ERROR = 5;

export async function runJqAction(ctx: ActionContext): Promise<ActionResult> {
  let filter: string;
  let input: string;
  let raw: boolean;
  try {
    filter = readFilter(ctx);
    input = await readInput(ctx);
    raw = readBool(ctx.with, 'raw');
  } catch (e) {
    if (e instanceof WithFieldError) return actionFailed(`jq: ${e.message}`);
    if (e instanceof JqInputError) return actionFailed(e.message);
    throw e;
  }
  let outcome;
  try {
    outcome = await runJq(filter, input, ctx.signal);
  } catch (e) {
    return actionFailed(`jq: ${(e as Error).message}`);
  }
  if (outcome.exitCode === JQ_COMPILE_ERROR) {
    return actionFailed(`jq: the filter does not compile: ${stripJqPrefix(outcome.stderr)}`);
  }
  if (outcome.exitCode !== 0 && outcome.exitCode !== JQ_RUNTIME_ERROR) {
    return actionFailed(`jq: exited with code ${outcome.exitCode}: ${outcome.stderr}`);
  }
  const stdout = sinkWriter(ctx.stdout);
  const stderr = sinkWriter(ctx.stderr);
  await writeResults(outcome.stdout, raw, stdout);
  if (outcome.exitCode === JQ_RUNTIME_ERROR) {
    await stderr(`failed to run jq query: ${stripJqPrefix(outcome.stderr)}\n`);
  } else if (outcome.stderr !== '') {
    await stderr(`${outcome.stderr}\n`); // `debug` and `stderr` builtins
  }
  return ACTION_OK;
}

/** An input that is missing, unreadable or not JSON. */
class JqInputError extends Error {}

function readFilter(ctx: ActionContext): string {
  if ('filter' in ctx.with) {
    const filter = ctx.with.filter;
    if (typeof filter !== 'string') throw new WithFieldError('filter', filter, 'a jq filter (text)');
    return filter;
  }
  return ctx.command?.[0] ?? '';
}

/** The input as JSON text, checked to be one JSON value. */
async function readInput(ctx: ActionContext): Promise<string> {
  const inputPath = readString(ctx.with, 'input').trim();
  const hasData = 'data' in ctx.with && ctx.with.data !== undefined;
  const script = ctx.script ?? '';
  if (inputPath !== '' && (script !== '' || hasData)) {
    throw new JqInputError('jq: with.input cannot be combined with with.data or script; give one input');
  }
  if (inputPath !== '') return readJsonFile(resolvePath(ctx.workingDir, inputPath), 'with.input');
  if (hasData) {
    const data = ctx.with.data;
    // As in Dagu, text in `data` is itself the JSON document; any other value is the document.
    if (typeof data !== 'string') return JSON.stringify(data ?? null);
    if (data.trim() === '') throw new JqInputError('jq: with.data is empty');
    return checkedJson(data, 'with.data');
  }
  if (script !== '') {
    if (script.startsWith('file://')) {
      return readJsonFile(resolvePath(ctx.workingDir, script.slice('file://'.length)), 'script');
    }
    return checkedJson(script, 'script');
  }
  throw new JqInputError('jq: no input: set with.data (a JSON value), with.input (a file path) or script');
}

async function readJsonFile(path: string, field: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new JqInputError(`jq: ${field}: cannot read '${path}': ${(e as Error).message}`);
  }
  return checkedJson(text, `${field} '${path}'`);
}

function checkedJson(text: string, what: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    throw new JqInputError(`jq: ${what} is not JSON: ${(e as Error).message}`);
  }
  return text;
}

function resolvePath(workingDir: string, path: string): string {
  return isAbsolute(path) ? path : join(workingDir, path);
}

/** `jq: error (at /dev/stdin:0): boom` -> `boom`; `jq: error: ...` -> `...`. */
function stripJqPrefix(stderr: string): string {
  return stderr
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/\njq: \d+ compile errors?$/, '')
    .trim();
}

async function writeResults(compact: string, raw: boolean, stdout: SinkWriter): Promise<void> {
  if (compact === '') return;
  const batch: string[] = [];
  let size = 0;
  for (const line of compact.split('\n')) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const text = value === undefined ? line : raw ? rawText(value) : goJson(value, '    ');
    batch.push(text, '\n');
    size += text.length;
    if (size > 64 * 1024) {
      await stdout(batch.join(''));
      batch.length = 0;
      size = 0;
    }
  }
  await stdout(batch.join(''));
}

/** Dagu's raw output: text as is, null as an empty line, numbers without exponent, the rest as compact JSON. */
function rawText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return plainNumber(value);
  return goJson(value);
}

/** A number the way Go's strconv.FormatFloat(v, 'f', -1, 64) writes it: shortest digits, no exponent. */
export function plainNumber(n: number): string {
  const text = String(n);
  const e = text.indexOf('e');
  if (e === -1) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot === -1 ? mantissa.length : dot) + exponent;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}
