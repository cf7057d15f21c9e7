// Reads Dagu's data actions (`action: data.convert`, `action: data.pick`, and the legacy `type: data` with the
// operation in `command`): checks `with` as Dagu does when it loads the file (its config schema, then its
// step validator), and keeps it as written; values are resolved when the step runs. As in Dagu, `from` and `to`
// must be written as one of the formats (a `${...}` reference is refused), `raw`, `has_header` and `headers`
// as booleans, and exactly one of `data` and `input` is given.

import { refuseShellKeys } from './readLegacyOp';
import type { DagReader, Entry } from './dagReader';
import { isNull } from './dagReader';
import type { StepExecution } from './readAction';

export const DATA_OPS = ['convert', 'pick'] as const;
export const DATA_FORMATS = ['json', 'yaml', 'csv', 'tsv', 'text'] as const;
export const DATA_WITH_KEYS = [
  'from',
  'to',
  'input',
  'data',
  'select',
  'raw',
  'has_header',
  'headers',
  'delimiter',
  'columns',
] as const;

/** `action: data.<op>` (`op` given), or legacy `type: data` (`op` null: it is in `command`). */
export function readDataAction(
  r: DagReader,
  map: Map<string, Entry>,
  op: string | null,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = 'data';
  const at = map.get('action') ?? map.get('type')!;
  const legacy = op === null;
  const commandEntry = map.get('command');
  if (legacy) {
    if (map.has('action')) {
      r.errorAt(at, 'action data needs an operation: data.convert or data.pick');
      return;
    }
    const written = r.string(commandEntry, 'an operation name');
    op = written?.trim().toLowerCase() ?? null;
    if (op === null || op === '') {
      if (!commandEntry || isNull(commandEntry.value))
        r.errorAt(at, 'type: data needs the operation in command (convert or pick)');
      else if (written !== undefined) r.errorAt(commandEntry, 'must not be empty');
      return;
    }
    if (!(DATA_OPS as readonly string[]).includes(op)) {
      r.errorAt(commandEntry!, `unsupported data operation ${JSON.stringify(written)} (use convert or pick)`);
      return;
    }
  }
  const name = `data.${op}`;
  refuseShellKeys(r, map, name, legacy);
  if (!withEntry || isNull(withEntry.value)) {
    r.errorAt(at, `${name} needs with: from, and data or input`);
    return;
  }
  const fields = r.map(withEntry, DATA_WITH_KEYS, 'with');
  if (!fields) return;
  const before = r.errors.length;

  const format = (key: 'from' | 'to'): string | undefined => {
    const e = fields.get(key);
    const v = r.string(e);
    if (v === undefined) {
      if (e && isNull(e.value)) r.errorAt(e, `must be one of ${DATA_FORMATS.join(', ')}`);
      return undefined;
    }
    if (!(DATA_FORMATS as readonly string[]).includes(v))
      r.errorAt(e!, `must be one of ${DATA_FORMATS.join(', ')}, got ${JSON.stringify(v)}`);
    return v;
  };
  const from = format('from');
  const to = format('to');
  if (from === undefined && !fields.has('from')) r.errorAt(withEntry, `${name} needs with.from`);
  if (op === 'convert' && to === undefined && !fields.has('to'))
    r.errorAt(withEntry, `${name} needs with.to`);

  const strings: Record<string, string | undefined> = {};
  for (const key of ['input', 'select', 'delimiter']) {
    const e = fields.get(key);
    strings[key] = r.string(e);
    if (e && isNull(e.value)) r.errorAt(e, 'must be a string');
  }
  const booleans: Record<string, boolean | undefined> = {};
  for (const key of ['raw', 'has_header', 'headers']) {
    const e = fields.get(key);
    if (e && isNull(e.value)) r.errorAt(e, 'must be true or false');
    else booleans[key] = r.boolean(e);
  }
  const columnsEntry = fields.get('columns');
  if (columnsEntry) {
    if (isNull(columnsEntry.value)) r.errorAt(columnsEntry, 'must be a list of column names');
    else for (const item of r.list(columnsEntry, 'columns') ?? []) r.string(item, 'a column name (a string)');
  }

  const delimiter = strings.delimiter;
  if (delimiter !== undefined && delimiter !== '' && [...delimiter].length !== 1)
    r.errorAt(fields.get('delimiter')!, `must be a single character, got ${JSON.stringify(delimiter)}`);

  const hasData = fields.has('data');
  const input = strings.input;
  if (hasData && fields.has('input')) {
    r.errorAt(fields.get('input')!, 'data and input are mutually exclusive; give one');
  } else if (!hasData && (fields.has('input') ? input !== undefined && input.trim() === '' : true)) {
    r.errorAt(
      fields.get('input') ?? withEntry,
      `${name} needs with.data (inline) or with.input (a file path)`,
    );
  }

  if (op === 'pick') {
    const selectText = strings.select;
    if (selectText === undefined || selectText.trim() === '') {
      if (!fields.has('select') || selectText !== undefined)
        r.errorAt(
          fields.get('select') ?? withEntry,
          `${name} needs with.select (a jq path such as .items[0].name)`,
        );
    }
    if (booleans.raw === true && to !== undefined && to.trim() !== '')
      r.errorAt(fields.get('to')!, 'raw and to are mutually exclusive; give one');
  }
  if (r.errors.length !== before) return;

  const w: Record<string, unknown> = {};
  for (const [key, e] of fields) w[key] = r.toJS(e.value);
  out.action = { kind: 'data', op: op as (typeof DATA_OPS)[number], with: w };
}
