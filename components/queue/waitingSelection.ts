// What the queue page shows and which rows are chosen: runs being cancelled leave the table at once, the
// selection only ever counts rows still shown, and the count beside the heading stays true while they leave.

/** The rows to show: the listing's items without the runs whose cancel is under way. */
export function shownItems<T extends { run_id: string }>(
  items: readonly T[],
  leaving: Iterable<string>,
): T[] {
  const gone = new Set(leaving);
  return items.filter((i) => !gone.has(i.run_id));
}

/** The chosen rows among those shown; `all` and `some` drive the select-all box (checked, indeterminate). */
export interface Selection {
  chosen: string[];
  all: boolean;
  some: boolean;
}

export function selectionOf(shownIds: readonly string[], selected: ReadonlySet<string>): Selection {
  const chosen = shownIds.filter((id) => selected.has(id));
  const all = shownIds.length > 0 && chosen.length === shownIds.length;
  return { chosen, all, some: chosen.length > 0 && !all };
}

/** `selected` with `ids` added (`on`) or removed; a new set, so React sees the change. */
export function withSelected(selected: ReadonlySet<string>, ids: Iterable<string>, on: boolean): Set<string> {
  const next = new Set(selected);
  for (const id of ids) {
    if (on) next.add(id);
    else next.delete(id);
  }
  return next;
}

/**
 * The count beside "Waiting runs": the shown rows, or `showing 50 of 120` when the server sent only the first
 * page (`listed` of `total`); rows leaving by a cancel come off both numbers.
 */
export function waitingCountText(total: number, listed: number, shown: number): string {
  if (total <= listed) return String(shown);
  return `showing ${shown} of ${total - (listed - shown)}`;
}
