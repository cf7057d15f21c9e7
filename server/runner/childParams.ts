// The params a sub-DAG run starts with: the call step's values laid over the child's declared params by the
// same rule as a command-line start (core/params.ts resolveRunParams: Dagu's refusals of an undeclared name
// and of too many positional values, and the rich definitions' checks).

import { parseParamWord, resolveRunParams, splitParamString } from '../core/params';
import type { ParamSchemaSpec, ParamSpec } from '../core/types';

export type ChildParamsResult = { ok: true; list: string[] } | { ok: false; error: string };

/** Lays `overrides` over the child's `defaults`; `list` is what the child's RunStatus.params holds. */
export function applyChildParams(
  defaults: readonly ParamSpec[],
  overrides: readonly ParamSpec[],
  schema?: ParamSchemaSpec,
): ChildParamsResult {
  return resolveRunParams(defaults, overrides, schema);
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
        // Dagu reads a JSON object's keys in sorted order (spec/params.go:parseMapParams).
        params: Object.keys(object)
          .sort()
          .map((name) => ({ name, value: paramText(object[name]) })),
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
