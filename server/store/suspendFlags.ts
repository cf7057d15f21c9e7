// Which DAGs have their schedule suspended: one flag file per DAG, `<dag>.suspend`, in the suspend-flags
// directory (Dagu's form, so a Dagu home's flags keep working). The flag's existence is the suspension; its
// content only says when and by whom, so an empty file (Dagu writes one) or a corrupt one still suspends.

import { isValidDagName } from '../core/names';

/** Ending of a flag file's name. */
export const SUSPEND_FLAG_SUFFIX = '.suspend';

/** What a flag says about its suspension; null fields when the flag does not say (Dagu's empty file). */
export interface SuspendRecord {
  dag: string;
  /** RFC 3339 UTC time the DAG was suspended. */
  suspended_at: string | null;
  /** Who suspended it: `cli`, `api`, or `api:<user>` under basic auth. */
  by: string | null;
}

/** The suspend flags of every DAG; scheduler, queue, API and CLI all read them fresh from storage. */
export interface SuspendFlags {
  /** Names of the suspended DAGs now. A storage error (other than no directory yet) is thrown. */
  names(): Promise<Set<string>>;
  /** Every suspended DAG's record; a flag whose content cannot be read is reported and still listed. */
  list(): Promise<Map<string, SuspendRecord>>;
  /** One DAG's record, or null when it is not suspended. */
  get(dag: string): Promise<SuspendRecord | null>;
  /** Suspends the DAG (written atomically); false when it was suspended already (its flag is kept). */
  suspend(record: SuspendRecord & { suspended_at: string }): Promise<boolean>;
  /** Removes the DAG's flag; false when it was not suspended. */
  resume(dag: string): Promise<boolean>;
}

/** The flag file's name of a DAG, as Dagu names it (DAG names here need no normalising). */
export function suspendFlagName(dag: string): string {
  return `${dag}${SUSPEND_FLAG_SUFFIX}`;
}

/** The DAG a directory entry is the flag of, or null for any other entry (temp files, foreign names). */
export function dagOfFlag(entry: string): string | null {
  if (!entry.endsWith(SUSPEND_FLAG_SUFFIX)) return null;
  const dag = entry.slice(0, -SUSPEND_FLAG_SUFFIX.length);
  return isValidDagName(dag) ? dag : null;
}

/** A flag's content as read: JSON with the fields of SuspendRecord, or empty (Dagu). Null when corrupt. */
export function parseSuspendFlag(dag: string, text: string): SuspendRecord | null {
  if (text.trim() === '') return { dag, suspended_at: null, by: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const at = typeof v.suspended_at === 'string' && !Number.isNaN(Date.parse(v.suspended_at));
  return {
    dag,
    suspended_at: at ? (v.suspended_at as string) : null,
    by: typeof v.by === 'string' ? v.by : null,
  };
}
