// A DAG's `dotenv` files: read at run start, in order (`.env` first), each found relative to the DAG's
// working directory and then to the DAG file's directory. A missing file is skipped without a word and a
// file that cannot be read or parsed only gives a warning, as in Dagu.

import { isAbsolute, join } from 'node:path';
import * as files from '../store/fileCalls';

/** What the dotenv files gave: their variables in load order (later wins), and the warnings. */
export interface DotenvResult {
  values: Array<[string, string]>;
  warnings: string[];
}

/** `.env` first, then the DAG's list, each once (the first occurrence keeps its place). */
export function dotenvLoadOrder(paths: readonly string[]): string[] {
  return [...new Set(['.env', ...paths.map((p) => p.trim())])].filter((p) => p !== '');
}

/**
 * Loads the files of `paths` (already value-resolved). A relative path is looked up in each of `baseDirs`
 * in turn; the first existing file is read.
 */
export async function loadDotenv(
  paths: readonly string[],
  baseDirs: readonly string[],
): Promise<DotenvResult> {
  const out: DotenvResult = { values: [], warnings: [] };
  for (const path of dotenvLoadOrder(paths)) {
    const candidates = isAbsolute(path) ? [path] : [...new Set(baseDirs)].map((dir) => join(dir, path));
    let file: string | null = null;
    for (const candidate of candidates) {
      const isFile = await files.stat(candidate).then(
        (s) => s.isFile(),
        () => false,
      );
      if (isFile) {
        file = candidate;
        break;
      }
    }
    if (file === null) continue;
    try {
      for (const entry of parseDotenv(await files.readText(file))) out.values.push(entry);
    } catch (err) {
      out.warnings.push(`failed to load dotenv file ${JSON.stringify(file)}: ${(err as Error).message}`);
    }
  }
  return out;
}

/**
 * Reads a dotenv file by the rules of the Go library Dagu uses (joho/godotenv 1.5): `KEY=value` or
 * `KEY: value`, an optional `export`, `#` comments (inline only after a blank); an unquoted or
 * double-quoted value has `$NAME` / `${NAME}` (upper-case names) filled in from the lines before it, an
 * unknown name giving the empty text, and `\$` keeps a dollar; a double-quoted value also turns `\n` and
 * `\r` into line breaks and drops the backslash of any other escape; a single-quoted one is kept as
 * written. Throws on a bad name or an unterminated quote. Entries in file order, each name once (the last).
 */
export function parseDotenv(text: string): Array<[string, string]> {
  const vars = new Map<string, string>();
  let src = text.replaceAll('\r\n', '\n');
  for (;;) {
    src = statementStart(src);
    if (src === '') break;
    const [key, afterKey] = keyName(src);
    const [value, rest] = varValue(afterKey, vars);
    vars.delete(key);
    vars.set(key, value);
    src = rest;
  }
  return [...vars];
}

/** Go's unicode.IsSpace minus the line breaks godotenv treats apart: the blanks inside a line. */
const isBlank = (c: string) =>
  c === '\t' || c === '\v' || c === '\f' || c === '\r' || c === ' ' || c === '\x85' || c === '\xa0';

function trimBlanks(text: string, side: 'start' | 'end' | 'both'): string {
  let a = 0;
  let b = text.length;
  if (side !== 'end') while (a < b && isBlank(text[a])) a++;
  if (side !== 'start') while (b > a && isBlank(text[b - 1])) b--;
  return text.slice(a, b);
}

/** Skips white space and comment lines; '' when nothing is left. */
function statementStart(src: string): string {
  for (;;) {
    const start = src.search(/\S/u);
    if (start < 0) return '';
    src = src.slice(start);
    if (src[0] !== '#') return src;
    const eol = src.indexOf('\n');
    if (eol < 0) return '';
    src = src.slice(eol);
  }
}

function keyName(src: string): [string, string] {
  src = trimBlanks(src, 'start');
  if (src.startsWith('export') && src.length > 6 && isBlank(src[6])) src = trimBlanks(src.slice(6), 'start');
  let key = '';
  let offset = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (isBlank(c)) continue;
    if (c === '=' || c === ':') {
      key = src.slice(0, i);
      offset = i + 1;
      break;
    }
    if (c === '_' || c === '.' || /[\p{L}\p{N}]/u.test(c)) continue;
    throw new Error(`unexpected character ${JSON.stringify(c)} in variable name near ${JSON.stringify(src)}`);
  }
  return [trimBlanks(key, 'end'), trimBlanks(src.slice(offset), 'start')];
}

function varValue(src: string, vars: ReadonlyMap<string, string>): [string, string] {
  const quote = src[0];
  if (quote !== '"' && quote !== "'") {
    let eol = src.search(/[\n\r]/);
    if (eol < 0) eol = src.length;
    let line = src.slice(0, eol);
    // An inline comment starts at the last '#' that follows a blank.
    for (let i = line.length - 1; i > 0; i--) {
      if (line[i] === '#' && isBlank(line[i - 1])) {
        line = line.slice(0, i);
        break;
      }
    }
    return [expandVars(trimBlanks(line, 'both'), vars), src.slice(eol)];
  }
  for (let i = 1; i < src.length; i++) {
    if (src[i] !== quote || src[i - 1] === '\\') continue;
    let value = src.slice(0, i);
    let a = 0;
    let b = value.length;
    while (a < b && value[a] === quote) a++;
    while (b > a && value[b - 1] === quote) b--;
    value = value.slice(a, b);
    if (quote === '"') value = expandVars(unescape(value), vars);
    return [value, src.slice(i + 1)];
  }
  const eol = src.indexOf('\n');
  throw new Error(`unterminated quoted value ${eol < 0 ? src : src.slice(0, eol)}`);
}

function unescape(text: string): string {
  const once = text.replace(/\\./g, (m) => (m === '\\n' ? '\n' : m === '\\r' ? '\r' : m));
  return once.replace(/\\([^$])/gu, '$1');
}

function expandVars(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(
    /(\\)?(\$)(\()?\{?([A-Z0-9_]+)?\}?/g,
    (match, escaped?: string, _d?: string, _p?: string, name?: string) => {
      if (escaped) return match.slice(1);
      if (name) return vars.get(name) ?? '';
      return match;
    },
  );
}
