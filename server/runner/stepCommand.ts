// Turns a step's `run`/`command`/`script`/`exec` into the processes to start, with Dagu 2.x's rules: which
// shell, when `-e` is added, command form (`<shell> -c <text>`) or script form (`<shell> <file>`), shebangs
// and `command: python3` + `script`. Pure apart from the text resolver it is given, so every rule is testable
// without starting anything.

import type { StepSpec } from '../core/types';

/** How the text to run is value-resolved (research note §2.3, rows for run/command/script and exec). */
export type TextPolicy =
  /** Text a POSIX-family shell runs (or a shebang/interpreter script): `$VAR` is left to the shell. */
  | 'posix_shell'
  /** Text a non-POSIX step shell runs (`shell: python3`): `$VAR` is substituted from the run scope. */
  | 'other_shell'
  /** argv of `exec`: refs and `$VAR` substituted, host environment included. */
  | 'exec';

/** Resolves references in step text; throws with a message naming what is wrong. */
export type TextResolver = (text: string, policy: TextPolicy) => string;

/** One process to start. With `script`, the text is written to a temp file whose path is appended to `args`. */
export interface Invocation {
  file: string;
  args: string[];
  script: { text: string; ext: string } | null;
}

/** Where the shell comes from, lowest priority last. */
export interface ShellSources {
  /** The step's own `shell` (a command line such as `bash -eo pipefail`), or null. */
  stepShell: string | null;
  stepShellArgs: readonly string[];
  dagShell: string | null;
  dagShellArgs: readonly string[];
  /** `DAGU_DEFAULT_SHELL`, else `$SHELL`, else `sh`: see defaultShellOf. */
  defaultShell: string;
}

/** The shell a step runs with: program and arguments, and whether the step itself chose it. */
export interface ChosenShell {
  words: string[];
  stepSet: boolean;
}

/** A step's invocations, or why it cannot run. */
export type StepCommandPlan = { ok: true; invocations: Invocation[] } | { ok: false; error: string };

const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'ksh', 'ash', 'dash']);

/** The default shell from the runner's environment: `DAGU_DEFAULT_SHELL`, else `$SHELL`, else `sh`. */
export function defaultShellOf(env: Readonly<Record<string, string | undefined>>): string {
  for (const value of [env.DAGU_DEFAULT_SHELL, env.SHELL]) if (value && value.trim() !== '') return value;
  return 'sh';
}

function baseName(program: string): string {
  return (program.split(/[/\\]/).pop() ?? program).toLowerCase().replace(/\.exe$/, '');
}

/** True for the shells that understand `-c` and `-e` the POSIX way (sh, bash, zsh, ksh, ash, dash). */
export function isPosixShell(program: string): boolean {
  return POSIX_SHELLS.has(baseName(program));
}

/** Extension of a script file run by `program`: `.sh` for sh, bash and zsh, none for the others. */
export function scriptExtension(program: string | null): string {
  if (program === null) return '';
  const name = baseName(program);
  return name === 'sh' || name === 'bash' || name === 'zsh' ? '.sh' : '';
}

/**
 * Splits a command line into words the way a shell would, without expanding anything: blanks separate
 * words, single quotes keep everything, double quotes keep all but `\"`, `\\`, `\$` and `` \` ``, and a
 * backslash outside quotes keeps the next character.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let started = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else current += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) current += line[++i];
      else current += ch;
    } else if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      started = true;
      if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '\\') {
        if (i + 1 >= line.length) throw new Error(`${JSON.stringify(line)} ends with a lone backslash`);
        current += line[++i];
      } else current += ch;
    }
  }
  if (quote !== null) throw new Error(`${JSON.stringify(line)} has an unterminated ${quote} quote`);
  if (started) words.push(current);
  return words;
}

/** The interpreter and its arguments from a script's `#!` line, or null when the script has none. */
export function parseShebang(script: string): string[] | null {
  if (!script.startsWith('#!')) return null;
  const end = script.indexOf('\n');
  const line = (end < 0 ? script : script.slice(0, end)).replace(/\r$/, '').slice(2);
  const words = splitCommandLine(line);
  if (words.length === 0 || words[0] === '') throw new Error('the shebang line names no interpreter');
  return words;
}

/** A shell given as a command line plus extra arguments; tolerates extra arguments already split off it. */
function shellWords(shell: string, extra: readonly string[]): string[] {
  const words = splitCommandLine(shell);
  if (words.length === 0) return [];
  const tail = words.slice(1);
  const sameTail = tail.length > 0 && tail.length === extra.length && tail.every((w, i) => w === extra[i]);
  return sameTail ? words : [...words, ...extra];
}

/** The step shell and its args, else the DAG's, else the default; step `shell_args` alone extend the inherited one. */
export function chooseShell(src: ShellSources): ChosenShell {
  if (src.stepShell !== null && src.stepShell.trim() !== '') {
    return { words: shellWords(src.stepShell, src.stepShellArgs), stepSet: true };
  }
  const inherited =
    src.dagShell !== null && src.dagShell.trim() !== ''
      ? shellWords(src.dagShell, src.dagShellArgs)
      : shellWords(src.defaultShell, []);
  const words = inherited.length > 0 ? inherited : ['sh'];
  return { words: [...words, ...src.stepShellArgs], stepSet: false };
}

function wantsErrexit(shell: ChosenShell, args: readonly string[]): boolean {
  return !shell.stepSet && isPosixShell(shell.words[0]!) && !args.includes('-e');
}

/** `<shell> <args> [-e] -c <text>`; a configured `-c` must be the last shell argument. */
export function commandFormArgv(shell: ChosenShell, text: string): { file: string; args: string[] } {
  const [file, ...configured] = shell.words as [string, ...string[]];
  const carrier = configured.indexOf('-c');
  if (carrier >= 0 && carrier !== configured.length - 1) {
    throw new Error(`shell argument -c must come last, got ${JSON.stringify(shell.words.join(' '))}`);
  }
  const before = carrier >= 0 ? configured.slice(0, carrier) : configured;
  const args = [...before];
  if (wantsErrexit(shell, configured)) args.push('-e');
  args.push('-c', text);
  return { file, args };
}

/** `<shell> <args> [-e]`, to which the script file is appended; `-c`/`-s` would eat the script instead. */
export function scriptFormArgv(shell: ChosenShell): { file: string; args: string[] } {
  const [file, ...configured] = shell.words as [string, ...string[]];
  if (isPosixShell(file)) {
    const clash = configured.find((a) => /^-[^-]*[cs]/.test(a));
    if (clash !== undefined) {
      throw new Error(
        `a script cannot run with shell argument ${JSON.stringify(clash)}: it takes the text from elsewhere`,
      );
    }
  }
  const args = [...configured];
  if (wantsErrexit(shell, configured)) args.push('-e');
  return { file, args };
}

type CommandStep = Pick<
  StepSpec,
  'command' | 'script' | 'shell' | 'shell_args' | 'shell_explicit' | 'script_interpreter' | 'action'
>;

/**
 * Plans the processes of one execution of a command or exec step. `resolve` value-resolves the text with the
 * policy its consumer needs; an error it throws becomes the plan's error.
 */
export function planStepCommand(
  step: CommandStep,
  shells: Omit<ShellSources, 'stepShell' | 'stepShellArgs'>,
  resolve: TextResolver,
): StepCommandPlan {
  try {
    return { ok: true, invocations: plan(step, shells, resolve) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

function plan(
  step: CommandStep,
  shells: Omit<ShellSources, 'stepShell' | 'stepShellArgs'>,
  resolve: TextResolver,
): Invocation[] {
  if (step.action?.kind === 'exec') {
    return [
      {
        file: resolve(step.action.command, 'exec'),
        args: step.action.args.map((a) => resolve(a, 'exec')),
        script: null,
      },
    ];
  }
  const shell = chooseShell({
    ...shells,
    stepShell: step.shell,
    stepShellArgs: step.shell_args ?? [],
  });
  // A step's explicit `shell_explicit: false` (set by the parser) wins over the mere presence of `shell`.
  if (step.shell_explicit !== undefined) shell.stepSet = step.shell_explicit && step.shell !== null;
  const posix = isPosixShell(shell.words[0]!);
  const commands = (step.command ?? []).filter((c) => c !== '');
  if (shell.words[0] === DIRECT_SHELL) return directInvocations(step, commands, resolve);

  if (step.script !== null && step.script !== undefined && (commands.length > 0 || step.script_interpreter)) {
    // `command: python3 -u` + `script:` runs the interpreter on the script file, no shell and no `-e`.
    const [file, ...args] = splitCommandLine(commands[0] ?? '');
    if (file === undefined) throw new Error('the script interpreter (command) is empty');
    const text = resolve(step.script, 'posix_shell');
    return [{ file, args, script: { text, ext: '' } }];
  }

  // The parser keeps multi-line `run` text as written and trims a legacy `script`; both run as given here.
  const scriptText =
    step.script !== null && step.script !== undefined
      ? step.script
      : commands.length === 1 && /[\r\n]/.test(commands[0]!)
        ? commands[0]!
        : null;
  if (scriptText !== null) {
    const shebang = shell.stepSet ? null : parseShebang(scriptText);
    if (shebang) {
      const text = resolve(scriptText, 'posix_shell');
      return [{ file: shebang[0]!, args: shebang.slice(1), script: { text, ext: '' } }];
    }
    const text = resolve(scriptText, posix ? 'posix_shell' : 'other_shell');
    const { file, args } = scriptFormArgv(shell);
    return [{ file, args, script: { text, ext: scriptExtension(file) } }];
  }

  if (commands.length === 0) throw new Error('step has no command or script');
  return commands.map((raw) => {
    const text = resolve(raw, posix ? 'posix_shell' : 'other_shell');
    if (/[\r\n]/.test(text)) {
      throw new Error(`resolved command text ${JSON.stringify(truncate(text))} contains a line break`);
    }
    return { ...commandFormArgv(shell, text), script: null };
  });
}

/** Dagu's `shell: direct`: no shell at all; each command line is split into words and its program run. */
export const DIRECT_SHELL = 'direct';

/**
 * The processes of a step under `shell: direct`: each command's words, split as a shell would split them
 * (quotes kept together, nothing expanded), then each word value-resolved as an `exec` argument is, since no
 * shell comes after to do it (`\$HOME` reaches the program as `$HOME`). A script has nothing to run it.
 */
function directInvocations(step: CommandStep, commands: string[], resolve: TextResolver): Invocation[] {
  const multiLine = commands.length === 1 && /[\r\n]/.test(commands[0]!);
  if ((step.script !== null && step.script !== undefined) || multiLine) {
    throw new Error('shell direct runs one command without a shell; a script needs a shell');
  }
  if (commands.length === 0) throw new Error('step has no command or script');
  return commands.map((raw) => {
    const words = splitCommandLine(raw).map((w) => resolve(w, 'exec'));
    if (words.length === 0) throw new Error('shell direct: the command is empty');
    return { file: words[0]!, args: words.slice(1), script: null };
  });
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
