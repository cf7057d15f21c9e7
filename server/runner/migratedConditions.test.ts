import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPosixShellText, backtickConditionCommand } from '../core/dag/dagu1Conditions';
import { checkConditions } from './checkConditions';

const dir = mkdtempSync(path.join(tmpdir(), 'dagu1-repeat-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Whether the 1.x condition's command check is met, evaluated as this product evaluates a 2.x condition
 * without `expected`: references filled in, then `<shell> -c`, exit 0 = met, `negate` swapping.
 */
async function met(
  shell: string,
  condition: string,
  expected: string,
  vars: Record<string, string> = {},
  negate = false,
) {
  const r = backtickConditionCommand(condition, expected, negate);
  if (!r.ok) throw new Error(r.reason);
  const outcome = await checkConditions([{ condition: r.command, eval: null, expected: null, negate }], {
    shell: [shell],
    env: { ...process.env, ...vars },
    cwd: dir,
    scope: { vars },
    label: 'repeat condition',
  });
  return outcome.status === 'met';
}

describe('a 1.x condition with backticks as a 2.x command check', () => {
  it.each(['sh', 'bash'])('matches as 1.x does under %s', async (shell) => {
    writeFileSync(path.join(dir, 'runs.txt'), 'x\nx\nx\n');
    // The output is trimmed and put in place; any line of the value equal to expected meets it.
    expect(await met(shell, '`wc -l < runs.txt`', '3')).toBe(true);
    expect(await met(shell, '`wc -l < runs.txt`', '2')).toBe(false);
    expect(await met(shell, '`printf "  done \\n\\n"`', 'done')).toBe(true);
    expect(await met(shell, 'n=`echo 3`!', 'n=3!')).toBe(true);
    expect(await met(shell, '`printf "a\\nready\\nb"`', 'ready')).toBe(true);
    expect(await met(shell, '`echo ready`', 'read')).toBe(false);
    // Two commands, and quotes, backslashes and a single quote in the text and in expected.
    expect(await met(shell, `"\`echo a\`" \\ 'x' \`echo b\``, `"a" \\ 'x' b`)).toBe(true);
    // re: is not anchored and looks at each line.
    expect(await met(shell, 'count `echo 7`', 're:^count [3-9]$')).toBe(true);
    expect(await met(shell, 'count `echo 12`', 're:^count [3-9]$')).toBe(false);
    expect(await met(shell, '`printf "x\\nok 1"`', 're:ok [0-9]')).toBe(true);
    // A failing command is "not met", even when it printed the expected text.
    expect(await met(shell, '`echo go; false`', 'go')).toBe(false);
    // Negated: met only when the command succeeds and its output does not match; a failing command is "not
    // met" either way, as 1.x skips the step on the evaluation error.
    expect(await met(shell, '`echo off`', 'on', {}, true)).toBe(true);
    expect(await met(shell, '`echo on`', 'on', {}, true)).toBe(false);
    expect(await met(shell, '`echo off; false`', 'on', {}, true)).toBe(false);
    // Variables expand, as 1.x expanded them before running the command.
    expect(await met(shell, '`echo $WANT`', 'yes', { WANT: 'yes' })).toBe(true);
  });

  it('refuses texts it cannot carry over with the same meaning', () => {
    const reason = (c: string, e: string) => {
      const r = backtickConditionCommand(c, e);
      return r.ok ? null : r.reason;
    };
    expect(reason('`echo` $(date)', 'x')).toMatch(/\$\( \)/);
    expect(reason('\\`echo x\\`', 'x')).toMatch(/escaped backtick/);
    expect(reason('`echo x', 'x')).toMatch(/not closed/);
    expect(reason('`echo x`\n', 'x')).toMatch(/several lines/);
    expect(reason('`echo 3`', 're:\\d')).toMatch(/grep -E/);
    expect(reason('`echo 3`', 're:(?i)a')).toMatch(/grep -E/);
    expect(reason('`echo 3`', 're:^[0-9]+$')).toBeNull();
  });

  it('knows the POSIX shells the check can run under', () => {
    expect(isPosixShellText('bash')).toBe(true);
    expect(isPosixShellText('/usr/bin/zsh -e')).toBe(true);
    expect(isPosixShellText('python3')).toBe(false);
  });
});
