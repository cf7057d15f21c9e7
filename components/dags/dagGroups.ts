// The DAG list's grouping by the DAGs' `group` key, as Dagu's console groups its definitions: the DAGs of no
// group first, then one section per group, by name. The sections an operator collapsed are remembered in
// the browser.

/** One section of the list: `name` null holds the DAGs of no group (listed without a heading). */
export interface DagGroup<T> {
  name: string | null;
  dags: T[];
}

/** Splits `dags` (in list order) into sections; each keeps the order it was given. */
export function groupDags<T extends { group: string }>(dags: readonly T[]): DagGroup<T>[] {
  const ungrouped: T[] = [];
  const byName = new Map<string, T[]>();
  for (const dag of dags) {
    const name = dag.group.trim();
    if (name === '') ungrouped.push(dag);
    else byName.set(name, [...(byName.get(name) ?? []), dag]);
  }
  const named = [...byName.keys()].sort((a, b) => a.localeCompare(b));
  return [
    ...(ungrouped.length > 0 ? [{ name: null, dags: ungrouped }] : []),
    ...named.map((name) => ({ name, dags: byName.get(name)! })),
  ];
}

/** Where the browser keeps the names of the collapsed sections. */
export const COLLAPSED_GROUPS_KEY = 'dagu.dagList.collapsedGroups';

/** The collapsed sections as stored; anything unreadable counts as none collapsed. */
export function parseCollapsed(stored: string | null): Set<string> {
  if (!stored) return new Set();
  try {
    const value: unknown = JSON.parse(stored);
    return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  } catch {
    return new Set();
  }
}
