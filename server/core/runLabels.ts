// A run's labels (Dagu's `labels`, once `tags`): the DAG's `labels:` plus those `dagu start`/`dagu enqueue`
// gave it with `--labels`, kept on the run's record; and the filters `dagu history --labels` matches them
// with. Rules of Dagu's internal/ir/label.go: a label is `key` or `key=value`, both lowercased and trimmed;
// a filter is `key`, `key=value`, `!key` or a glob (`*`, `?`), and several filters must all match.

import type { DagSpec, RunStatus } from './types';

/** One label: `value` is '' for a key-only label. */
export interface RunLabel {
  key: string;
  value: string;
}

/** Dagu's MaxLabelKeyLength and MaxLabelValueLength (in bytes of UTF-8, as Go's len). */
const MAX_KEY_BYTES = 63;
const MAX_VALUE_BYTES = 255;
const KEY_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const VALUE_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_./-]*$/;
const utf8 = new TextEncoder();

/**
 * Dagu's ParseLabel: `key` or `key=value` (split at the first `=`), each side trimmed and lowercased; null
 * when the key is empty (Dagu drops such a label, `=v` included, without an error).
 */
export function parseLabel(text: string): RunLabel | null {
  const t = text.trim();
  const at = t.indexOf('=');
  const key = (at < 0 ? t : t.slice(0, at)).trim().toLowerCase();
  if (key === '') return null;
  return {
    key,
    value:
      at < 0
        ? ''
        : t
            .slice(at + 1)
            .trim()
            .toLowerCase(),
  };
}

/** `key` or `key=value`, as records and the API show a label. */
export function labelText(l: RunLabel): string {
  return l.value === '' ? l.key : `${l.key}=${l.value}`;
}

/** Dagu's ValidateLabel: what is wrong with a label, or null. */
export function labelError(l: RunLabel): string | null {
  if (l.key === '') return 'label key cannot be empty';
  if (utf8.encode(l.key).length > MAX_KEY_BYTES) return `label key exceeds max length ${MAX_KEY_BYTES}`;
  if (!KEY_PATTERN.test(l.key))
    return `label key ${JSON.stringify(l.key)} contains invalid characters (allowed: a-z, A-Z, 0-9, -, _, .)`;
  if (utf8.encode(l.value).length > MAX_VALUE_BYTES)
    return `label value exceeds max length ${MAX_VALUE_BYTES}`;
  if (l.value !== '' && !VALUE_PATTERN.test(l.value))
    return `label value ${JSON.stringify(l.value)} contains invalid characters (allowed: a-z, A-Z, 0-9, -, _, ., /)`;
  return null;
}

/**
 * The value of `--labels` (or its deprecated alias `--tags`) of `dagu start`/`dagu enqueue`: labels separated
 * by commas, as `key` or `key=value` texts; empty parts are dropped. An invalid label is refused with Dagu's
 * text (`invalid labels: label "a b": label key "a b" contains invalid characters ...`), one line per label.
 */
export function readLabelsFlag(text: string): { ok: true; labels: string[] } | { ok: false; error: string } {
  const labels = text.split(',').flatMap((part) => parseLabel(part) ?? []);
  const errors = labels.flatMap((l) => {
    const why = labelError(l);
    return why === null ? [] : [`label ${JSON.stringify(labelText(l))}: ${why}`];
  });
  if (errors.length > 0) return { ok: false, error: `invalid labels: ${errors.join('\n')}` };
  return { ok: true, labels: labels.map(labelText) };
}

/** Dagu's error when both `--labels` and its deprecated alias `--tags` are given. */
export const LABELS_AND_TAGS = 'labels and deprecated tags cannot both be set';

/**
 * The text of `--labels` or of its deprecated alias `--tags` (Dagu's labelsParam), undefined when neither was
 * given; both at once are refused, even when one is empty.
 */
export function labelsFlagText(flags: {
  labels?: string;
  tags?: string;
}): { ok: true; text: string | undefined } | { ok: false; error: string } {
  if (flags.labels !== undefined && flags.tags !== undefined) return { ok: false, error: LABELS_AND_TAGS };
  return { ok: true, text: flags.labels ?? flags.tags };
}

/** The labels of a DAG (`labels`, or `tags` on a spec built without them). */
export function dagLabels(dag: Pick<DagSpec, 'labels' | 'tags'>): string[] {
  return dag.labels ?? dag.tags ?? [];
}

/**
 * `dag` with `extra` labels after its own (a label it has already is not added twice): the DAG a run with
 * `--labels` runs, whose record then carries them all. `dag` itself when there is nothing to add.
 */
export function withExtraLabels(dag: DagSpec, extra: readonly string[]): DagSpec {
  const own = dagLabels(dag);
  const added = [...new Set(extra)].filter((l) => !own.includes(l));
  if (added.length === 0) return dag;
  const labels = [...own, ...added];
  return { ...dag, labels, tags: labels };
}

/**
 * `dag` with the labels a run of it recorded in place of its own: a restart's new run keeps the labels of the
 * run it restarts, as Dagu's DAG snapshot does. `dag` itself when the record has none.
 */
export function withRecordedLabels(dag: DagSpec, run: Pick<RunStatus, 'labels'>): DagSpec {
  if (!run.labels || run.labels.length === 0) return dag;
  return { ...dag, labels: [...run.labels], tags: [...run.labels] };
}

/** A filter of `dagu history --labels` (Dagu's LabelFilter). */
export type LabelFilter =
  | { kind: 'key'; key: string }
  | { kind: 'exact'; key: string; value: string }
  | { kind: 'not'; key: string }
  | { kind: 'glob'; key: RegExp; value: RegExp | null };

/**
 * The filters of `dagu history --labels a,b=c,!d,e*`: split at commas, empty parts dropped (Dagu's
 * parseLabels), each one read by Dagu's ParseLabelFilter. Lowercased, so matching ignores case.
 */
export function parseLabelFilters(text: string): LabelFilter[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(parseLabelFilter);
}

function parseLabelFilter(text: string): LabelFilter {
  if (text.startsWith('!')) return { kind: 'not', key: text.slice(1).trim().toLowerCase() };
  const at = text.indexOf('=');
  if (at >= 0) {
    const key = text.slice(0, at).trim().toLowerCase();
    const value = text
      .slice(at + 1)
      .trim()
      .toLowerCase();
    if (isGlob(key) || isGlob(value))
      return { kind: 'glob', key: globRegExp(key), value: value === '' ? null : globRegExp(value) };
    return { kind: 'exact', key, value };
  }
  const key = text.toLowerCase();
  return isGlob(key) ? { kind: 'glob', key: globRegExp(key), value: null } : { kind: 'key', key };
}

function isGlob(text: string): boolean {
  return text.includes('*') || text.includes('?');
}

/** Dagu's glob: `*` any run of characters (slashes too), `?` one character, the rest literal. */
function globRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^$()[\]{}|\\/]/g, '\\$&');
  }
  // As Go's regexp: `.` is one character (a code point) and not a line break.
  return new RegExp(`^${source}$`, 'u');
}

/** Whether labels (as recorded: `key` or `key=value`) pass every filter (Dagu's MatchesFilters: AND). */
export function matchesLabelFilters(labels: readonly string[], filters: readonly LabelFilter[]): boolean {
  if (filters.length === 0) return true;
  const parsed = labels.flatMap((l) => parseLabel(l) ?? []);
  return filters.every((f) => matchesFilter(parsed, f));
}

function matchesFilter(labels: readonly RunLabel[], f: LabelFilter): boolean {
  switch (f.kind) {
    case 'key':
      return labels.some((l) => l.key === f.key);
    case 'exact':
      return labels.some((l) => l.key === f.key && l.value === f.value);
    case 'not':
      return !labels.some((l) => l.key === f.key);
    case 'glob':
      return labels.some((l) => f.key.test(l.key) && (f.value === null || f.value.test(l.value)));
  }
}
