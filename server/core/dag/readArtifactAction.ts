// Reads Dagu's artifact actions (`action: artifact.write`, `artifact.read`, `artifact.list`, and the legacy
// `type: artifact` with the operation in `command`): checks `with` as Dagu's config schema and step validator
// do when the file loads, and keeps it as written; text values are resolved when the step runs.
//
// `path`, `content`, `mode`, `format` and `pattern` are texts; `overwrite`, `atomic`, `recursive` and
// `include_dirs` booleans; `max_bytes` a whole number of at least 0. read and write need a non-blank `path`,
// write needs `content` (an empty text counts); `overwrite: true` with `atomic: false` is an error; `format`
// is raw or json; `mode` an octal mode such as 0644 or 0o600. Where the path leads is checked when the step
// runs (a hostile `../` then fails the step), as in Dagu.

import type { DagReader, Entry } from './dagReader';
import { isNull } from './dagReader';
import type { StepExecution } from './readAction';
import { legacyOperation, refuseShellKeys } from './readLegacyOp';
import { readBooleanKeys, readStrictTextKeys } from './readWithTexts';

export const ARTIFACT_OPS = ['write', 'read', 'list'] as const;
export type ArtifactOp = (typeof ARTIFACT_OPS)[number];

const TEXTS = ['path', 'content', 'mode', 'format', 'pattern'] as const;
const BOOLEANS = ['overwrite', 'atomic', 'recursive', 'include_dirs'] as const;
const KEYS: readonly string[] = [...TEXTS, ...BOOLEANS, 'max_bytes'];

/** An octal file mode as Dagu's schema writes it: three or four octal digits, `0o` allowed in front. */
export const ARTIFACT_MODE = /^(0o|0O)?[0-7]{3,4}$/;

/** `action: artifact.<op>` (`op` given), or legacy `type: artifact` (`op` null: it is in `command`). */
export function readArtifactAction(
  r: DagReader,
  map: Map<string, Entry>,
  op: ArtifactOp | null,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = 'artifact';
  const at = map.get('action') ?? map.get('type')!;
  const legacy = op === null;
  if (legacy) {
    const read = legacyOperation(r, map, 'artifact', ARTIFACT_OPS);
    if (read === null) return;
    op = read;
  }
  const action = `artifact.${op!}`;
  const before = r.errors.length;
  refuseShellKeys(r, map, action, legacy);
  let fields = new Map<string, Entry>();
  if (withEntry && !isNull(withEntry.value)) {
    const m = r.map(withEntry, KEYS, 'with');
    if (!m) return;
    fields = m;
  }
  const w: Record<string, unknown> = {};
  readStrictTextKeys(r, fields, TEXTS, w);
  readBooleanKeys(r, fields, BOOLEANS, w);
  const maxEntry = fields.get('max_bytes');
  if (maxEntry && isNull(maxEntry.value)) r.errorAt(maxEntry, 'must be an integer, got nothing');
  const max = r.integer(maxEntry, 0);
  if (max !== undefined) w.max_bytes = max;

  const whole = withEntry ?? at;
  if ((op === 'read' || op === 'write') && !fields.has('path')) r.errorAt(whole, `${action} needs with.path`);
  else if (typeof w.path === 'string' && w.path.trim() === '' && op !== 'list')
    r.errorAt(fields.get('path')!, 'must not be blank');
  if (op === 'write' && !fields.has('content')) r.errorAt(whole, `${action} needs with.content`);
  if (op === 'write' && w.overwrite === true && w.atomic === false)
    r.errorAt(fields.get('atomic')!, 'overwrite requires atomic writes (leave atomic true)');
  if (typeof w.format === 'string' && !['', 'raw', 'json'].includes(w.format))
    r.errorAt(fields.get('format')!, `must be raw or json, got ${JSON.stringify(w.format)}`);
  if (typeof w.mode === 'string' && !ARTIFACT_MODE.test(w.mode))
    r.errorAt(
      fields.get('mode')!,
      `must be an octal file mode such as 0600 or 0644, got ${JSON.stringify(w.mode)}`,
    );
  if (r.errors.length === before) out.action = { kind: 'artifact', op: op!, with: w };
}
