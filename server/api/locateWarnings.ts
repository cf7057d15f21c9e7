// Where in the text a DAG warning points: the loader's warnings are sentences that name a field
// (`steps[0].command is deprecated`, `type: steps without depends ...`, `document 2 (child): ...`); the
// first field named that exists in the document gives the line and column, for the editor's marks.

import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';

/** A field path as the loader writes it, not inside another word. */
const FIELD = /(?<![A-Za-z0-9_.[\]])[a-z_][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z_][a-z0-9_]*(?:\[\d+\])?)*/g;

export interface WarningPlace {
  line: number;
  column: number;
  /** The field the warning was placed at, as written in it. */
  field: string;
}

/** The place of each warning in `text` (1-based), or null where it names no field of the document. */
export function locateWarnings(text: string, warnings: readonly string[]): Array<WarningPlace | null> {
  if (warnings.length === 0) return [];
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  const list = Array.isArray(docs) ? docs : [];
  return warnings.map((w) => {
    const doc = /^document (\d+) \(/.exec(w);
    const contents = list[doc ? Number(doc[1]) - 1 : 0]?.contents ?? null;
    const body = doc ? w.slice(w.indexOf(': ') + 2) : w;
    for (const m of body.matchAll(FIELD)) {
      const offset = offsetOf(contents, m[0]);
      if (offset !== null) {
        const { line, col } = lineCounter.linePos(offset);
        return { line, column: col, field: m[0] };
      }
    }
    return null;
  });
}

/** The offset of the key (or list item) a path like `steps[0].command` names, or null when it does not exist. */
function offsetOf(root: unknown, field: string): number | null {
  let node: unknown = root;
  let at: number | null = null;
  for (const part of field.split('.')) {
    const m = /^([a-z_][a-z0-9_]*)(?:\[(\d+)\])?$/.exec(part)!;
    if (!isMap(node)) return null;
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === m[1]);
    if (!pair) return null;
    at = (pair.key as Node).range?.[0] ?? null;
    node = pair.value;
    if (m[2] !== undefined) {
      if (!isSeq(node)) return null;
      const item = node.items[Number(m[2])];
      if (item === undefined) return null;
      at = (item as Node).range?.[0] ?? at;
      node = item;
    }
  }
  return at;
}
