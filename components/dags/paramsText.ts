// The Parameters field of the start dialog: words as a shell splits them (quotes keep spaces), one per line or
// several on a line; `KEY=value` is named, anything else positional. The DAG's declared params as a hint.

import type { ParamSpec } from '@/components/apiTypes';
import { formatParam, splitParamString } from '@/server/core/params';

export type ParsedParams = { ok: true; params: string[] } | { ok: false; error: string };

export function parseParamsText(text: string): ParsedParams {
  const split = splitParamString(text);
  return split.ok ? { ok: true, params: split.words } : { ok: false, error: `Parameters: ${split.error}` };
}

/** The DAG's declared parameters as words: `KEY=default`, or the default of a positional one. */
export function declaredParams(params: readonly ParamSpec[] | null | undefined): string[] {
  return (params ?? []).map(formatParam);
}

/** One word as the field would read it back: quoted when it holds spaces or quotes. */
export function quoteParam(word: string): string {
  return /[\s'"\\]/.test(word) || word === '' ? `'${word.replace(/'/g, `'\\''`)}'` : word;
}
