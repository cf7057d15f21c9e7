// The operation of a step written in Dagu's legacy form for a family of actions (`type: git`, `type: state`,
// `type: archive`): `command` names it (`command: worktree.add`). The action form names it in the action
// (`action: git.worktree.add`); a bare `action: git` has none and is an error.

import type { DagReader, Entry } from './dagReader';
import { isNull } from './dagReader';

/**
 * The operation of a legacy `type: <family>` step, read from `command` (trimmed, any case), or null after an
 * error: no operation, an empty one, one the family does not have, or `action: <family>` without one.
 */
export function legacyOperation<Op extends string>(
  r: DagReader,
  map: Map<string, Entry>,
  family: string,
  ops: readonly Op[],
): Op | null {
  const at = map.get('action') ?? map.get('type')!;
  const list = ops.join(', ');
  if (map.has('action')) {
    r.errorAt(at, `action ${family} needs an operation: ${ops.map((o) => `${family}.${o}`).join(', ')}`);
    return null;
  }
  const commandEntry = map.get('command');
  const written = r.string(commandEntry, 'an operation name');
  const name = written?.trim().toLowerCase();
  if (name === undefined || name === '') {
    if (!commandEntry || isNull(commandEntry.value))
      r.errorAt(at, `type: ${family} needs the operation in command (${list})`);
    else if (written !== undefined) r.errorAt(commandEntry, 'must not be empty');
    return null;
  }
  if (!(ops as readonly string[]).includes(name)) {
    r.errorAt(commandEntry!, `unsupported ${family} operation ${JSON.stringify(written)} (use ${list})`);
    return null;
  }
  return name as Op;
}

/**
 * Refuses the keys that would run shell text on a step of a named action: `run`, `script`, `shell`, `exec`,
 * and `command` unless the legacy form names the operation with it. A key left empty (null) is no error.
 */
export function refuseShellKeys(
  r: DagReader,
  map: Map<string, Entry>,
  action: string,
  legacy: boolean,
): void {
  for (const key of ['run', 'script', 'shell', 'exec', ...(legacy ? [] : ['command'])]) {
    const e = map.get(key);
    if (e && !isNull(e.value)) r.errorAt(e, `action ${action} does not take ${key}`);
  }
}
