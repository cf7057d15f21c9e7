// The params a sub-DAG run starts with: the call step's values laid over the child's defaults the way Dagu's
// runtime lays command-line params over a DAG's (positional values fill the declared entries in order, named
// values replace their namesake), with Dagu's two refusals: an undeclared name when the child declares named
// params, and more positional values than it declares.

import { formatParam, parseParamWord, splitParamString } from '../core/params';
import type { ParamSpec } from '../core/types';

export type ChildParamsResult = { ok: true; list: string[] } | { ok: false; error: string };

/** Lays `overrides` over the child's `defaults`; `list` is what the child's RunStatus.params holds. */
export function applyChildParams(
  defaults: readonly ParamSpec[],
  overrides: readonly ParamSpec[],
): ChildParamsResult {
  const declared = new Set(defaults.flatMap((p) => (p.name === null ? [] : [p.name])));
  if (declared.size > 0) {
    const unknown = [
      ...new Set(overrides.flatMap((p) => (p.name !== null && !declared.has(p.name) ? [p.name] : []))),
    ];
    if (unknown.length > 0) {
      return {
        ok: false,
        error:
          `unknown parameter(s): ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ` +
          `accepted parameters are: ${[...declared].sort().join(', ')}`,
      };
    }
  }
  const entries = defaults.map((p) => ({ ...p }));
  let positional = 0;
  for (const o of overrides) {
    if (o.name === null) {
      // With no declared params every value is welcome; otherwise they fill the declared entries in order.
      if (defaults.length === 0) {
        entries.push({ ...o });
        continue;
      }
      if (positional >= defaults.length) {
        const got = overrides.filter((p) => p.name === null).length;
        return {
          ok: false,
          error: `too many positional params: expected at most ${defaults.length}, got ${got}`,
        };
      }
      entries[positional].value = o.value;
      positional++;
      continue;
    }
    const same = entries.find((p) => p.name === o.name);
    if (same) same.value = o.value;
    else entries.push({ ...o });
  }
  return { ok: true, list: entries.map(formatParam) };
}

/**
 * Reads a param string as the child's command line would: a JSON object gives named params (values as text),
 * anything else is split into words, each `NAME=value` or positional.
 */
export function parseParamText(
  text: string,
): { ok: true; params: ParamSpec[] } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const object = parseJsonObject(trimmed);
    if (object) {
      return {
        ok: true,
        params: Object.entries(object).map(([name, value]) => ({ name, value: paramText(value) })),
      };
    }
  }
  const split = splitParamString(text);
  if (!split.ok) return { ok: false, error: `params ${JSON.stringify(text)}: ${split.error}` };
  return { ok: true, params: split.words.map(parseParamWord) };
}

/** A JSON value as a param value: strings as they are, anything else as its JSON text. */
export function paramText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
