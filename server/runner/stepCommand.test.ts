import { describe, expect, it } from 'vitest';
import type { StepSpec } from '../core/types';
import {
  chooseShell,
  commandFormArgv,
  defaultShellOf,
  parseShebang,
  planStepCommand,
  scriptExtension,
  scriptFormArgv,
  splitCommandLine,
  type TextPolicy,
} from './stepCommand';

type Step = Parameters<typeof planStepCommand>[0];
const step = (extra: Partial<StepSpec>): Step => ({ command: null, script: null, shell: null, ...extra });
const noDagShell = { dagShell: null, dagShellArgs: [], defaultShell: 'sh' };
/** A resolver that shows which policy each text got. */
const tag = (text: string, policy: TextPolicy) => `${text}<${policy}>`;
const same = (text: string) => text;

describe('splitCommandLine', () => {
  it('splits on blanks and keeps quoted text and escapes as one word', () => {
    expect(splitCommandLine(`bash  -eo pipefail`)).toEqual(['bash', '-eo', 'pipefail']);
    expect(splitCommandLine(`a 'b c' "d \\"e\\" $f" g\\ h ''`)).toEqual(['a', 'b c', 'd "e" $f', 'g h', '']);
  });

  it('refuses an unterminated quote and a trailing backslash', () => {
    expect(() => splitCommandLine(`bash 'oops`)).toThrow(/unterminated ' quote/);
    expect(() => splitCommandLine(`bash \\`)).toThrow(/lone backslash/);
  });
});

describe('shell choice', () => {
  it('takes the step shell, then the DAG shell, then the default', () => {
    const dag = { dagShell: 'bash -o pipefail', dagShellArgs: ['-u'], defaultShell: 'zsh' };
    expect(chooseShell({ ...dag, stepShell: 'python3 -u', stepShellArgs: ['-B'] })).toEqual({
      words: ['python3', '-u', '-B'],
      stepSet: true,
    });
    expect(chooseShell({ ...dag, stepShell: null, stepShellArgs: [] })).toEqual({
      words: ['bash', '-o', 'pipefail', '-u'],
      stepSet: false,
    });
    expect(chooseShell({ ...dag, dagShell: null, stepShell: null, stepShellArgs: ['-x'] })).toEqual({
      words: ['zsh', '-x'],
      stepSet: false,
    });
  });

  it('does not repeat arguments the parser already split off a string shell', () => {
    expect(
      chooseShell({ ...noDagShell, stepShell: 'bash -eo pipefail', stepShellArgs: ['-eo', 'pipefail'] })
        .words,
    ).toEqual(['bash', '-eo', 'pipefail']);
  });

  it('defaults to DAGU_DEFAULT_SHELL, then SHELL, then sh', () => {
    expect(defaultShellOf({ DAGU_DEFAULT_SHELL: 'bash', SHELL: '/bin/zsh' })).toBe('bash');
    expect(defaultShellOf({ SHELL: '/bin/zsh' })).toBe('/bin/zsh');
    expect(defaultShellOf({ SHELL: ' ' })).toBe('sh');
  });

  it('adds -e only to an inherited POSIX shell that lacks it, before a configured -c', () => {
    expect(commandFormArgv({ words: ['/bin/bash'], stepSet: false }, 'x').args).toEqual(['-e', '-c', 'x']);
    expect(commandFormArgv({ words: ['bash', '-o', 'pipefail', '-c'], stepSet: false }, 'x').args).toEqual([
      '-o',
      'pipefail',
      '-e',
      '-c',
      'x',
    ]);
    expect(commandFormArgv({ words: ['bash'], stepSet: true }, 'x').args).toEqual(['-c', 'x']);
    expect(commandFormArgv({ words: ['sh', '-e'], stepSet: false }, 'x').args).toEqual(['-e', '-c', 'x']);
    expect(commandFormArgv({ words: ['python3'], stepSet: false }, 'x').args).toEqual(['-c', 'x']);
    expect(() => commandFormArgv({ words: ['sh', '-c', '-x'], stepSet: false }, 'x')).toThrow(
      /-c must come last/,
    );
  });

  it('refuses -c or -s with a script, and adds -e after the shell args', () => {
    expect(scriptFormArgv({ words: ['dash', '-x'], stepSet: false })).toEqual({
      file: 'dash',
      args: ['-x', '-e'],
    });
    expect(() => scriptFormArgv({ words: ['bash', '-c'], stepSet: true })).toThrow(/shell argument "-c"/);
    expect(() => scriptFormArgv({ words: ['sh', '-xs'], stepSet: true })).toThrow(/"-xs"/);
  });

  it('names script files .sh for sh, bash and zsh only', () => {
    expect(['/bin/sh', 'bash', 'zsh', 'ksh', 'python3', null].map(scriptExtension)).toEqual([
      '.sh',
      '.sh',
      '.sh',
      '',
      '',
      '',
    ]);
  });
});

describe('parseShebang', () => {
  it('reads the interpreter and its arguments from the first line', () => {
    expect(parseShebang('#!/usr/bin/env python3 -u\nprint(1)')).toEqual(['/usr/bin/env', 'python3', '-u']);
    expect(parseShebang('echo hi')).toBeNull();
    expect(() => parseShebang('#!  \necho')).toThrow(/names no interpreter/);
  });
});

describe('planStepCommand', () => {
  it('runs each entry of a command list as its own command-form shell call', () => {
    expect(planStepCommand(step({ command: ['echo a', 'echo $B'] }), noDagShell, tag)).toEqual({
      ok: true,
      invocations: [
        { file: 'sh', args: ['-e', '-c', 'echo a<posix_shell>'], script: null },
        { file: 'sh', args: ['-e', '-c', 'echo $B<posix_shell>'], script: null },
      ],
    });
  });

  it("runs each command's words with no shell under Dagu's shell: direct, each word resolved as exec's", () => {
    const direct = { ...noDagShell, dagShell: 'direct' };
    expect(planStepCommand(step({ command: [`/bin/echo '\\$HOME' "a b"`, 'true'] }), direct, tag)).toEqual({
      ok: true,
      invocations: [
        { file: '/bin/echo<exec>', args: ['\\$HOME<exec>', 'a b<exec>'], script: null },
        { file: 'true<exec>', args: [], script: null },
      ],
    });
    // A step's own `shell: direct` too; a script has nothing to run it.
    expect(planStepCommand(step({ command: ['ls -l'], shell: 'direct' }), noDagShell, same)).toEqual({
      ok: true,
      invocations: [{ file: 'ls', args: ['-l'], script: null }],
    });
    expect(planStepCommand(step({ command: ['echo a\necho b\n'] }), direct, same)).toEqual({
      ok: false,
      error: 'shell direct runs one command without a shell; a script needs a shell',
    });
  });

  it('substitutes $VAR for a non-POSIX step shell', () => {
    const plan = planStepCommand(step({ command: ['print(1)'], shell: 'python3' }), noDagShell, tag);
    expect(plan).toEqual({
      ok: true,
      invocations: [{ file: 'python3', args: ['-c', 'print(1)<other_shell>'], script: null }],
    });
  });

  it('refuses resolved single-line text that gained a line break', () => {
    const plan = planStepCommand(step({ command: ['echo ${X}'] }), noDagShell, () => 'echo a\nb');
    expect(plan).toEqual({ ok: false, error: 'resolved command text "echo a\\nb" contains a line break' });
  });

  it('runs multi-line text and a script as the parser gave them, in script form', () => {
    expect(planStepCommand(step({ command: ['echo a\necho b\n'] }), noDagShell, same)).toEqual({
      ok: true,
      invocations: [{ file: 'sh', args: ['-e'], script: { text: 'echo a\necho b\n', ext: '.sh' } }],
    });
    expect(planStepCommand(step({ script: '  echo a\n' }), noDagShell, same)).toEqual({
      ok: true,
      invocations: [{ file: 'sh', args: ['-e'], script: { text: '  echo a\n', ext: '.sh' } }],
    });
  });

  it('honours a shebang only when the step set no shell', () => {
    const script = '#!/usr/bin/env python3\nprint(1)';
    expect(planStepCommand(step({ script }), noDagShell, tag)).toEqual({
      ok: true,
      invocations: [
        { file: '/usr/bin/env', args: ['python3'], script: { text: `${script}<posix_shell>`, ext: '' } },
      ],
    });
    expect(planStepCommand(step({ script, shell: 'bash' }), noDagShell, same)).toEqual({
      ok: true,
      invocations: [{ file: 'bash', args: [], script: { text: script, ext: '.sh' } }],
    });
  });

  it('runs command + script as interpreter and file, without a shell', () => {
    const plan = planStepCommand(
      step({ command: ['python3 -u'], script: 'print(1)\n', script_interpreter: true }),
      { ...noDagShell, dagShell: 'bash' },
      tag,
    );
    expect(plan).toEqual({
      ok: true,
      invocations: [{ file: 'python3', args: ['-u'], script: { text: 'print(1)\n<posix_shell>', ext: '' } }],
    });
  });

  it('gives a non-POSIX step shell script its $VAR substituted', () => {
    const plan = planStepCommand(step({ script: 'print("$X")', shell: 'python3' }), noDagShell, tag);
    expect(plan).toEqual({
      ok: true,
      invocations: [{ file: 'python3', args: [], script: { text: 'print("$X")<other_shell>', ext: '' } }],
    });
  });

  it('runs exec argv directly with the exec policy', () => {
    const plan = planStepCommand(
      step({ action: { kind: 'exec', command: 'printf', args: ['%s', '$X'] } }),
      noDagShell,
      tag,
    );
    expect(plan).toEqual({
      ok: true,
      invocations: [{ file: 'printf<exec>', args: ['%s<exec>', '$X<exec>'], script: null }],
    });
  });

  it('says so when there is nothing to run, and passes a resolver error on', () => {
    expect(planStepCommand(step({ command: [] }), noDagShell, same)).toEqual({
      ok: false,
      error: 'step has no command or script',
    });
    const failing = () => {
      throw new Error('${steps.x.outputs.y}: no step with id "x"');
    };
    expect(planStepCommand(step({ command: ['echo'] }), noDagShell, failing)).toEqual({
      ok: false,
      error: '${steps.x.outputs.y}: no step with id "x"',
    });
  });
});
