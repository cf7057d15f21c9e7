// `dagu migrate` on one file's text: a Dagu 1.x file rewritten in 2.x spelling with its 1.x meaning kept
// (dagu1.ts does the translation on the YAML tree, so comments, order and styles stay), a 2.x file left as it
// is, and a file that cannot be written in 2.x spelling without a change of meaning refused with the reasons.

import { parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import { differencesUnder1x, translateDagu1 } from './dagu1';

export type MigrateResult =
  | { kind: 'migrated'; text: string; renames: string[]; meanings: string[] }
  /** `differences`: where Dagu 1.x would read the file otherwise (dagu1.ts `differencesUnder1x`). */
  | { kind: 'already'; differences: string[] }
  | { kind: 'refused'; reasons: string[] };

/** Migrates one DAG file's text. Never throws. */
export function migrateDagText(text: string): MigrateResult {
  const docs = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false, keepSourceTokens: false });
  const list = Array.isArray(docs) ? docs : [];
  const broken = list.flatMap((d) => d.errors);
  if (broken.length > 0)
    return { kind: 'refused', reasons: [`invalid YAML: ${broken[0].message.split('\n')[0]}`] };
  const t = translateDagu1(list as Document[], 'migrate');
  if (!t.isDagu1) return { kind: 'already', differences: differencesUnder1x(list as Document[]) };
  if (t.blockers.length > 0) return { kind: 'refused', reasons: t.blockers };
  const out = list.map((d) => d.toString({ lineWidth: 0, flowCollectionPadding: false })).join('');
  return { kind: 'migrated', text: out, renames: t.renames, meanings: t.meanings };
}
