// A Dagu 1.x condition with backticks and `expected` (a precondition, or a `repeatPolicy` condition), written
// as a 2.x command check. 1.x runs each backtick command (with `sh -c`, no time limit), trims its output, puts
// it in place, and compares the text with `expected` line by line (`re:` for a regular expression); a command
// that fails is "not met" (a step is skipped, a DAG aborted, a repeat decided), `negate` or not. 2.x compares
// a `condition` with `expected` as plain text, and its `eval` has a time limit and makes a failure an error;
// but a `condition` without `expected` is a shell command whose exit status decides, with no limit. So the
// condition runs the same commands in `$( )`, trims their output the same way, and lets `grep` do the line
// match. Texts this cannot carry over exactly are refused, with the reason.

/** The 2.x command check for a 1.x `condition`/`expected` pair, or why there is none with the same meaning. */
export type ConditionCommand = { ok: true; command: string } | { ok: false; reason: string };

/** Shells that read the generated text (`$( )`, `${v%%…}`, `||`) as it is meant. */
const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'ksh', 'ash', 'dash']);

/** Whether a DAG's or step's `shell` value (a program, maybe with arguments) is a POSIX shell. */
export function isPosixShellText(shell: string): boolean {
  const program = shell.trim().split(/\s+/)[0] ?? '';
  return POSIX_SHELLS.has(program.slice(program.lastIndexOf('/') + 1));
}

type Part = { kind: 'text'; text: string } | { kind: 'command'; text: string };

/** Splits a condition as 1.x's substitution does: text, and `command` between backticks. */
function splitBackticks(condition: string): Part[] | string {
  if (condition.includes('\\`')) return 'it has an escaped backtick, which 1.x keeps with its backslash';
  const pieces = condition.split('`');
  if (pieces.length % 2 === 0) return 'it has a backtick that is not closed';
  const parts: Part[] = [];
  pieces.forEach((text, i) => {
    if (i % 2 === 0) parts.push({ kind: 'text', text });
    // An empty pair stays as two backticks of text in 1.x.
    else if (text === '') parts.push({ kind: 'text', text: '``' });
    else parts.push({ kind: 'command', text });
  });
  return parts;
}

/** `text` inside double quotes: `$` still expands (1.x expanded variables too); the rest is literal. */
function doubleQuoted(text: string): string {
  return text.replace(/[\\"`]/g, (c) => `\\${c}`);
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Whether a Go (RE2) pattern means the same to `grep -E`: no escapes of letters (`\d`, `\w`, `\b` differ or are
 * missing), no `(?` groups or flags, no lazy quantifiers.
 */
function ereSafe(pattern: string): boolean {
  return !/\\[A-Za-z]|\(\?|[*+?}]\?/.test(pattern);
}

/**
 * The command a 2.x `condition` (with no `expected`) runs for the 1.x pair, with the same meaning: it exits 0
 * exactly when 1.x found the condition met (with `negate`: when 1.x found it not met by a successful command).
 */
export function backtickConditionCommand(
  condition: string,
  expected: string,
  negate = false,
): ConditionCommand {
  if (condition.includes('$(')) {
    return { ok: false, reason: 'it also has $( ), which 1.x keeps as text and a shell would run' };
  }
  if (/[\r\n]/.test(condition) || /[\r\n]/.test(expected)) {
    return { ok: false, reason: 'the condition or expected value spans several lines' };
  }
  const parts = splitBackticks(condition);
  if (typeof parts === 'string') return { ok: false, reason: parts };
  let match: string;
  if (expected.startsWith('re:')) {
    const pattern = expected.slice(3);
    if (!ereSafe(pattern)) {
      return {
        ok: false,
        reason: `its expected pattern ${JSON.stringify(pattern)} may mean something else to grep -E`,
      };
    }
    match = `grep -qE -e ${singleQuoted(pattern)}`;
  } else {
    match = `grep -qxF -e ${singleQuoted(expected)}`;
  }
  const lines: string[] = [];
  let value = '';
  let n = 0;
  for (const part of parts) {
    if (part.kind === 'text') {
      value += doubleQuoted(part.text);
      continue;
    }
    n++;
    const v = `_dagu_out${n}`;
    // A failed command is "not met" in 1.x, negated or not: under `negate` (which swaps the exit status's
    // meaning) it exits 0. Its output is trimmed of surrounding white space.
    lines.push(
      `${v}=$(${part.text}) || exit ${negate ? 0 : 1}`,
      `${v}=\${${v}#"\${${v}%%[![:space:]]*}"}`,
      `${v}=\${${v}%"\${${v}##*[![:space:]]}"}`,
    );
    value += `\${${v}}`;
  }
  lines.push(`printf '%s\\n' "${value}" | ${match}`);
  return { ok: true, command: lines.join('\n') };
}
