// A run's labels as the console shows them (chips, only a few where room is short), and the run list's label
// filter as its URL keeps it.

/** The labels shown as chips, at most `max` of them, and those left out (counted as "+N", listed in a title). */
export function chipLabels(
  labels: readonly string[] | undefined,
  max = Infinity,
): { shown: string[]; hidden: string[] } {
  const all = labels ?? [];
  return { shown: all.slice(0, max), hidden: all.slice(max) };
}

/**
 * A label filter as typed (`team=data, nightly,`) as the URL keeps it: each comma-separated part trimmed,
 * empty ones dropped, joined by commas; undefined when nothing is left.
 */
export function normalizeLabelFilter(text: string | null | undefined): string | undefined {
  const parts = (text ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return parts.length > 0 ? parts.join(',') : undefined;
}

/** Every DAG's labels (the DAG list's `tags`), distinct and sorted: suggestions for the label filter. */
export function labelSuggestions(dags: ReadonlyArray<{ tags: readonly string[] }>): string[] {
  return [...new Set(dags.flatMap((d) => d.tags))].sort();
}
