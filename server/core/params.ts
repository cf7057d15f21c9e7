// Run parameters: the DAG's defaults merged with command-line overrides. Values are data, never shell text:
// nothing here (or anywhere in dagu) expands `$VAR`, `$(...)`, backticks or globs in a parameter.

import type { ParamSpec } from './types';

/** Names of named parameters (they become environment variables of the steps). */
export const PARAM_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parameters of one run, after overrides. */
export interface ResolvedParams {
  /** Positional values in order; steps get them as $1, $2, ... */
  positional: string[];
  /** Named values; steps get them as environment variables. */
  named: Record<string, string>;
  /** Every parameter in order as `KEY=value` or a bare value: what RunStatus.params stores. */
  list: string[];
}

export type SplitParamsResult = { ok: true; words: string[] } | { ok: false; error: string };

/**
 * Reads one parameter word: `KEY=value` (KEY a valid name) is named, anything else is positional. The same rule
 * reads the DAG's string form, the command line and RunStatus.params, so a stored list reads back the same.
 */
export function parseParamWord(word: string): ParamSpec {
  const eq = word.indexOf('=');
  if (eq > 0 && PARAM_NAME_PATTERN.test(word.slice(0, eq))) {
    return { name: word.slice(0, eq), value: word.slice(eq + 1) };
  }
  return { name: null, value: word };
}

/** A parameter as one word of the stored list. */
export function formatParam(p: ParamSpec): string {
  return p.name === null ? p.value : `${p.name}=${p.value}`;
}

/**
 * Merges command-line overrides into the DAG's defaults. A named override (`KEY=value`) replaces the default
 * of that name, or is added at the end; a bare value replaces the positional default at its index, or is
 * added at the end. Values are kept verbatim.
 */
export function resolveParams(defaults: readonly ParamSpec[], overrides: readonly string[]): ResolvedParams {
  const entries: ParamSpec[] = defaults.map((p) => ({ ...p }));
  let positionalIndex = 0;
  for (const word of overrides) {
    const override = parseParamWord(word);
    if (override.name === null) {
      const slots = entries.filter((p) => p.name === null);
      if (positionalIndex < slots.length) slots[positionalIndex].value = override.value;
      else entries.push(override);
      positionalIndex++;
    } else {
      const same = entries.filter((p) => p.name === override.name);
      if (same.length === 0) entries.push(override);
      for (const p of same) p.value = override.value;
    }
  }
  return {
    positional: entries.filter((p) => p.name === null).map((p) => p.value),
    // fromEntries defines own properties, so a parameter named __proto__ stays a parameter.
    named: Object.fromEntries(entries.flatMap((p) => (p.name === null ? [] : [[p.name, p.value]]))),
    list: entries.map(formatParam),
  };
}

/**
 * Splits the DAG's string form of params into words the way a POSIX shell splits words, without any
 * expansion: whitespace separates, '...' is literal, "..." allows \" \\ \$ \` escapes, a backslash outside
 * quotes keeps the next character.
 */
export function splitParamString(s: string): SplitParamsResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return { ok: false, error: `unterminated single quote at position ${i + 1}` };
      word += s.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`'.includes(s[j + 1])) j++;
        word += s[j];
      }
      if (j >= s.length) return { ok: false, error: `unterminated double quote at position ${i + 1}` };
      inWord = true;
      i = j;
    } else if (c === '\\') {
      // A backslash before a line break joins the lines, as in a shell.
      if (i + 1 < s.length && s[i + 1] !== '\n') word += s[i + 1];
      else if (i + 1 === s.length) word += '\\';
      i++;
      inWord = inWord || word !== '';
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return { ok: true, words };
}
