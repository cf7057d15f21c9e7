// Reads `consts:` (Dagu 2.x): a list of one-key maps `- NAME: value`, each value a literal string, number or
// boolean. A const's text may use `${consts.X}` of a const listed before it, which is filled in here; any
// other reference stays as written (other fields get `${consts.X}` when the run resolves them).

import { isMap, isScalar, isSeq } from 'yaml';
import type { Scalar } from 'yaml';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import { formatGoFloat } from './values';

const CONST_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const CONST_REF = /\$\{consts\.([A-Za-z][A-Za-z0-9_]*)\}/g;

/** The consts in the order written, values as text; undefined when the DAG has none. */
export function readConsts(r: DagReader, entry: Entry | undefined): Record<string, string> | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  if (!isSeq(entry.value)) {
    return r.errorAt(
      entry,
      `consts must use list form (- NAME: value, one per item), got ${describe(entry.value)}`,
    );
  }
  const consts = new Map<string, string>();
  for (const item of r.list(entry, 'consts') ?? []) {
    if (!isMap(item.value)) {
      r.errorAt(
        item,
        `consts entries must be single-entry mappings (- NAME: value), got ${describe(item.value)}`,
      );
      continue;
    }
    const fields = r.map(item, null, 'a const');
    if (!fields) continue;
    if (fields.size !== 1) {
      r.errorAt(item, `consts entries must contain exactly one key, got ${fields.size}`);
      continue;
    }
    const [field] = fields.values();
    const name = field.key;
    const at: Entry = { ...field, field: `consts.${name}` };
    if (!CONST_NAME.test(name)) {
      r.error(
        field.keyNode,
        item.field,
        `consts key ${JSON.stringify(name)} is invalid (start with a letter; then letters, digits and _)`,
      );
      continue;
    }
    if (consts.has(name)) {
      r.error(field.keyNode, at.field, `consts key ${JSON.stringify(name)} is defined more than once`);
      continue;
    }
    const value = constText(r, at);
    if (value === undefined) continue;
    consts.set(
      name,
      value.replace(CONST_REF, (ref, ref_name: string) => consts.get(ref_name) ?? ref),
    );
  }
  return Object.fromEntries(consts);
}

/** A const's value as text: strings as written, integers in decimal, other numbers as Go prints them. */
function constText(r: DagReader, entry: Entry): string | undefined {
  const literal = 'must be a literal string, number, or boolean';
  if (!isScalar(entry.value) || entry.value.value === null) {
    return r.errorAt(entry, `const ${JSON.stringify(entry.key)} ${literal}, got ${describe(entry.value)}`);
  }
  const v = entry.value.value;
  if (typeof v === 'string') return r.string(entry);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    const source = (entry.value as Scalar & { source?: string }).source ?? String(v);
    if (!Number.isFinite(v)) {
      return r.errorAt(entry, `const ${JSON.stringify(entry.key)} must be finite, got ${source}`);
    }
    const integer = /^[-+]?\d+$/.test(source) || entry.value.format === 'HEX' || entry.value.format === 'OCT';
    return integer && Number.isSafeInteger(v) ? String(v) : formatGoFloat(v);
  }
  return r.errorAt(entry, `const ${JSON.stringify(entry.key)} ${literal}, got ${describe(entry.value)}`);
}
