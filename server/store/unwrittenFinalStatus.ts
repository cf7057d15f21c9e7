// The note a run process leaves when its final status could not be written, as the name of an empty file in
// the attempt's directory: `final-status-unwritten~<state>~<error code>`. A name needs no data block, so the
// note can often still be made on a full disk, where the status itself could not.

import { RUN_STATES } from '../core/runStates';
import type { RunState } from '../core/types';
import type { UnwrittenFinalStatus } from './types';

const PREFIX = 'final-status-unwritten~';
const STATES: readonly RunState[] = RUN_STATES;
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,31}$/;

/** The file name of a note; an error code that is not a plain errno name is recorded as `UNKNOWN`. */
export function unwrittenNoteName(note: UnwrittenFinalStatus): string {
  if (!STATES.includes(note.state)) throw new Error(`not a run state: ${JSON.stringify(note.state)}`);
  const code = CODE_PATTERN.test(note.error_code) ? note.error_code : 'UNKNOWN';
  return `${PREFIX}${note.state}~${code}`;
}

/** The note a file name holds, or null for any other name. */
export function parseUnwrittenNoteName(name: string): UnwrittenFinalStatus | null {
  if (!name.startsWith(PREFIX)) return null;
  const [state, code, ...rest] = name.slice(PREFIX.length).split('~');
  if (rest.length > 0 || !STATES.includes(state as RunState) || !CODE_PATTERN.test(code ?? '')) return null;
  return { state: state as RunState, error_code: code };
}
