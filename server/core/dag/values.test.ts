import { describe, expect, it } from 'vitest';

import {
  formatGoFloat,
  formatGoValue,
  goQuote,
  resolveEvalValue,
  resolveJsonPath,
  resolveValue,
  splitParallelItems,
  ValueResolutionError,
  type ValuePolicy,
  type ValueScope,
} from './values';

// Expectations come from Dagu's documented rules (research note §2.3) and the cases of upstream's
// internal/cmn/value tests, rewritten here as our own tables.

const scope: ValueScope = {
  vars: {
    NAME: 'world',
    EMPTY: '',
    GREETING: 'HelloWorld',
    FILE: 'archive.tar.gz',
    OUT: '{"a":{"b":[10,20]},"n":1000000,"f":1.5,"nil":null,"t":true,"s":"x y","o":{"z":1,"a":"<b>"}}',
    ITEMS: '["a","b"]',
    TEXT: 'not json',
    TILDE: '~/.cache/x',
    UNSAFE_TILDE: '~/$(printf unsafe)',
    '1': 'first',
    '2': 'second',
    '10': 'tenth',
  },
  params: { region: 'eu', count: '3' },
  paramsJson: '{"region":"eu","count":"3"}',
  consts: { service: 'api', port: 8080, on: true },
  steps: {
    build: {
      stdout: '/logs/build.out',
      stderr: '/logs/build.err',
      exit_code: 2,
      output: '{"image":"repo/app:1","tags":["x","y"]}',
      outputs: { version: '1.2.3', meta: { k: 'v' }, none: null },
    },
    quiet: { stdout: '', stderr: null, exit_code: null, output: null, outputs: null },
  },
  context: { 'dag.name': 'etl', 'run.id': 'r-1', 'attempt.started_at': '2026-01-01T00:00:00Z' },
  hostEnv: { HOST_ONLY: 'from-host', NAME: 'host-name', HOST_JSON: '{"k":"hv"}' },
};

function r(text: string, policy: ValuePolicy = 'value', s: ValueScope = scope): string {
  return resolveValue(text, s, policy);
}

describe('namespaced references', () => {
  it.each([
    ['${params.region}', 'eu'],
    ['${ params.region }', 'eu'],
    ['${params}', '{"region":"eu","count":"3"}'],
    ['${consts.service}:${consts.port}:${consts.on}', 'api:8080:true'],
    ['${env.NAME}', 'world'],
    ['${env.HOST_ONLY}', 'from-host'],
    ['${steps.build.outputs.version}', '1.2.3'],
    ['${steps.build.outputs.meta}', '{"k":"v"}'],
    ['${steps.build.outputs.none}', 'null'],
    ['${context.dag.name}/${dag.name}', 'etl/etl'],
    ['${context.run.id} ${run.id}', 'r-1 r-1'],
    ['${run.started_at}', '2026-01-01T00:00:00Z'],
  ])('%s resolves to %s', (text, want) => {
    expect(r(text)).toBe(want);
  });

  it.each([
    '${params.missing}',
    '${consts.missing}',
    '${env.MISSING_X}',
    '${steps.build.outputs.missing}',
    '${steps.nobody.outputs.x}',
    '${context.run.status}',
    '${context.nothing.here}',
  ])('an unresolved %s is kept verbatim', (text) => {
    expect(r(`a ${text} b`)).toBe(`a ${text} b`);
  });

  it('keeps unsupported syntax as ordinary text', () => {
    expect(r('${params...}')).toBe('${params...}');
    expect(r('$params.region')).toBe('$params.region');
    expect(r('${steps.build.output.image}', 'value', { ...scope, steps: {} })).toBe(
      '${steps.build.output.image}',
    );
  });

  it('resolves namespaced references even in shell text and inside single quotes', () => {
    expect(r("echo '${params.region}' ${consts.service}", 'shellText')).toBe("echo 'eu' api");
  });

  it('an unresolved binding is not re-read by later phases', () => {
    const s: ValueScope = { vars: { params: '{"missing":"oops"}' } };
    expect(r('${params.missing}', 'value', s)).toBe('${params.missing}');
  });

  it('reads a foreach item scope: scalars as Go prints them, objects as JSON, one field deep', () => {
    const foreach = {
      index: '2',
      key: 'k-2',
      item: { name: 'x<y', n: 1.5, deep: { a: [1] }, none: null },
      num: 1e21,
      flag: true,
    };
    const s: ValueScope = { ...scope, foreach };
    expect(r('${foreach.index}/${foreach.key}', 'value', s)).toBe('2/k-2');
    expect(r('${foreach.item.name} ${foreach.item.n} ${foreach.num} ${foreach.flag}', 'value', s)).toBe(
      'x<y 1.5 1e+21 true',
    );
    expect(r('${foreach.item.deep}', 'shellText', s)).toBe('{"a":[1]}');
    expect(r('${foreach.item}', 'value', s)).toBe(
      '{"deep":{"a":[1]},"n":1.5,"name":"x\\u003cy","none":null}',
    );
    expect(r('${foreach.item.none}', 'value', s)).toBe('<nil>');
    // Unknown names and fields, deeper paths, a field of a scalar, and no foreach at all: left as written.
    for (const text of [
      '${foreach.other}',
      '${foreach.item.missing}',
      '${foreach.item.deep.a}',
      '${foreach.key.x}',
    ]) {
      expect(r(text, 'value', s)).toBe(text);
    }
    expect(r('${foreach.item}')).toBe('${foreach.item}');
  });

  it('an escaped binding stays literal and loses one backslash', () => {
    expect(r('\\${params.region}')).toBe('${params.region}');
    expect(r('\\${params.region}', 'shellText')).toBe('${params.region}');
    expect(r('\\\\${params.region}')).toBe('\\\\eu');
  });
});

describe('JSON paths and step references', () => {
  it.each([
    ['${OUT.a.b[0]}', '10'],
    ['${OUT.a.b.[1]}', '20'],
    ['${OUT.a}', '{"b":[10,20]}'],
    ['${OUT.n}', '1e+06'],
    ['${OUT.f}', '1.5'],
    ['${OUT.nil}', '<nil>'],
    ['${OUT.missing}', '<nil>'],
    ['${OUT.t}', 'true'],
    ['${OUT.s}', 'x y'],
    ['${OUT.o}', '{"a":"\\u003cb\\u003e","z":1}'],
    ['$OUT.s', 'x y'],
    ['Multi: ${OUT.f}, $OUT.t , done', 'Multi: 1.5, true , done'],
  ])('%s resolves to %s', (text, want) => {
    expect(r(text)).toBe(want);
  });

  it.each(['${TEXT.a}', '${OUT.s.deeper}', '${NOPE.a}', '${OUT.a b}', '${OUT.a[x]}'])(
    '%s is kept verbatim (not JSON, not an object, unknown, or no path)',
    (text) => {
      expect(r(text)).toBe(text);
    },
  );

  it('reads JSON from the host env only where the policy allows it', () => {
    expect(r('${HOST_JSON.k}', 'value')).toBe('${HOST_JSON.k}');
    expect(r('${HOST_JSON.k}', 'dagEnv')).toBe('hv');
  });

  it.each([
    ['${build.stdout}', '/logs/build.out'],
    ['${build.stderr}', '/logs/build.err'],
    ['${build.exit_code}/${build.exitCode}', '2/2'],
    ['${build.output}', '{"image":"repo/app:1","tags":["x","y"]}'],
    ['${build.output.image}', 'repo/app:1'],
    ['${build.output.tags[1]}', 'y'],
    ['${build.outputs.version}', '1.2.3'],
    ['${build.stdout:0:5}', '/logs'],
    ['${build.stdout:6}', 'build.out'],
    ['${build.stdout:100}', ''],
    ['${quiet.exit_code}', ''],
  ])('step reference %s resolves to %s', (text, want) => {
    expect(r(text)).toBe(want);
  });

  it.each([
    '${quiet.stdout}',
    '${quiet.stderr}',
    '${quiet.output}',
    '${quiet.outputs.x}',
    '${build.unknown}',
    '${build.stdout:-1}',
    '${ghost.stdout}',
  ])('step reference %s without a value is kept verbatim', (text) => {
    expect(r(text)).toBe(text);
  });

  it('expands step references in shell text', () => {
    expect(r('cat ${build.stdout} | grep "$NAME"', 'shellText')).toBe('cat /logs/build.out | grep "$NAME"');
  });
});

describe('plain variables per policy', () => {
  it.each<[ValuePolicy, string, string]>([
    ['value', '$NAME-${NAME}', 'world-world'],
    ['stepEnv', '$NAME ${UNKNOWN}', 'world ${UNKNOWN}'],
    ['value', '$HOST_ONLY', '$HOST_ONLY'],
    ['stepEnv', '${HOST_ONLY}/x', '${HOST_ONLY}/x'],
    ['dagEnv', '${HOST_ONLY}/x', 'from-host/x'],
    ['dagEnvRuntime', '$HOST_ONLY', '$HOST_ONLY'],
    ['hostValue', '$HOST_ONLY', 'from-host'],
    ['directCommand', '$HOST_ONLY $NAME', 'from-host world'],
    ['dagEnv', '$NAME', 'world'],
    ['shellText', 'echo $NAME ${NAME} $HOST_ONLY', 'echo $NAME ${NAME} $HOST_ONLY'],
    ['shellText', 'echo $1 ${2} "$1"', 'echo first second "first"'],
    ['shellText', "awk '{print $1}'", "awk '{print $1}'"],
    ['shellText', 'echo $10', 'echo tenth'],
    ['shellText', 'echo $1abc', 'echo $1abc'],
    ['shellText', 'touch $TILDE $UNSAFE_TILDE', 'touch ~/.cache/x $UNSAFE_TILDE'],
    ['shellText', 'echo ${NAME:-x}', 'echo ${NAME:-x}'],
    ['shellText', 'echo \\$1 \\$NAME', 'echo \\$1 \\$NAME'],
    ['nonPosixScript', 'print("$NAME ${NAME} $1")', 'print("world world first")'],
    ['nonPosixScript', 'print("$HOST_ONLY")', 'print("$HOST_ONLY")'],
    ['nonPosixScript', 'x = "\\$NAME"', 'x = "\\$NAME"'],
    [
      'conditionCommand',
      'test "$NAME" = world && echo $HOST_ONLY',
      'test "world" = world && echo $HOST_ONLY',
    ],
    ['conditionCommand', 'test $NAME = world', 'test world = world'],
    ['conditionCommand', '${NAME:-x}', '${NAME:-x}'],
    ['literal', '${params.region} $NAME', '${params.region} $NAME'],
  ])('%s: %s → %s', (policy, text, want) => {
    expect(r(text, policy)).toBe(want);
  });

  it('never expands inside single quotes', () => {
    expect(r("'$NAME' and '${NAME}' and $NAME")).toBe("'$NAME' and '${NAME}' and world");
    expect(r("prefix'$NAME'suffix")).toBe("prefix'$NAME'suffix");
    expect(r("'a ${NAME:-x} b'")).toBe("'a ${NAME:-x} b'");
  });

  it('an unbalanced single quote does not protect what follows it', () => {
    expect(r("$NAME'")).toBe("world'");
    expect(r("${NAME}'")).toBe("world'");
    expect(r("it's $NAME")).toBe("it's world");
  });

  it('a quote after $ or } does not open a single-quoted span', () => {
    expect(r("$'a $NAME'")).toBe("$'a world'");
    expect(r("${NAME}'a $NAME'")).toBe("world'a world'");
  });

  it.each([
    ['\\$NAME', '$NAME'],
    ['\\\\$NAME', '\\\\world'],
    ['\\\\\\$NAME', '\\\\$NAME'],
    ['cost: \\$5', 'cost: $5'],
    ['\\${NAME}', '${NAME}'],
  ])('escapes: %s → %s', (text, want) => {
    expect(r(text)).toBe(want);
  });

  it('keeps empty and invalid names verbatim', () => {
    expect(r('${} $ $- ${1NAME}')).toBe('${} $ $- ${1NAME}');
  });

  it('does not run backticks or $() outside eval', () => {
    expect(r('`date` $(whoami)', 'dagEnv')).toBe('`date` $(whoami)');
    expect(r('`date` $(whoami)', 'shellText')).toBe('`date` $(whoami)');
  });

  it('replaces a wholly double-quoted reference with a Go-quoted value', () => {
    const s: ValueScope = { vars: { ITEM: '{"file": "f1.txt"}', MULTI: 'a\nb', CONFIG: '{"file":"/p q"}' } };
    expect(r('params: aJson="${ITEM}"', 'value', s)).toBe('params: aJson="{\\"file\\": \\"f1.txt\\"}"');
    expect(r('echo "${MULTI}"', 'shellText', s)).toBe('echo "a\\nb"');
    expect(r('"${CONFIG.file}"', 'value', s)).toBe('"/p q"');
    expect(r('"${MISSING}"', 'value', s)).toBe('"${MISSING}"');
  });

  it('an empty text stays empty', () => {
    expect(r('')).toBe('');
  });
});

describe('POSIX operators on defined variables', () => {
  it.each([
    ['${NAME:-d}', 'world'],
    ['${EMPTY:-d}', 'd'],
    ['${EMPTY-d}', ''],
    ['${EMPTY:-$NAME}', 'world'],
    ['${NAME:+w}', 'w'],
    ['${EMPTY:+w}', ''],
    ['${EMPTY+w}', 'w'],
    // Upstream spec006: an assignment is never made; an empty variable keeps the expression.
    ['${EMPTY:=v}', '${EMPTY:=v}'],
    ['${NAME:=v}', 'world'],
    ['${#GREETING}', '10'],
    ['${GREETING:0:5}', 'Hello'],
    ['${GREETING:5}', 'World'],
    ['${GREETING: -5}', 'World'],
    ['${GREETING:20}', ''],
    ['${FILE#*.}', 'tar.gz'],
    ['${FILE##*.}', 'gz'],
    ['${FILE%.*}', 'archive.tar'],
    ['${FILE%%.*}', 'archive'],
    ['${FILE/a/A}', 'Archive.tar.gz'],
    ['${FILE//a/A}', 'Archive.tAr.gz'],
    ['${FILE#zzz}', 'archive.tar.gz'],
  ])('%s → %s', (text, want) => {
    expect(r(text, 'stepEnv')).toBe(want);
  });

  it('keeps every shell-style expression of a field that would assign, and still fills plain references', () => {
    // Upstream conformance spec006 "shell-style assignment preserves field".
    expect(
      r('$NAME ${NAME} ${NAME:-fallback} ${EMPTY:=fallback} ${EMPTY:-fallback} x${EMPTY}x', 'value'),
    ).toBe('world world ${NAME:-fallback} ${EMPTY:=fallback} ${EMPTY:-fallback} xx');
    // Without an assigning expression the operators apply.
    expect(r('${NAME:-fallback} ${EMPTY:-fallback}', 'value')).toBe('world fallback');
  });

  it('keeps an operator on an undefined variable verbatim', () => {
    expect(r('${UNSET_X:-default}', 'dagEnv')).toBe('${UNSET_X:-default}');
    expect(r('${UNSET_X:?required}', 'dagEnv')).toBe('${UNSET_X:?required}');
  });

  it('applies operators to host variables where the policy allows them', () => {
    expect(r('${HOST_ONLY:0:4}', 'dagEnv')).toBe('from');
    expect(r('${HOST_ONLY:0:4}', 'stepEnv')).toBe('${HOST_ONLY:0:4}');
  });

  it('prefers the run scope over the host env', () => {
    expect(r('$NAME', 'dagEnv')).toBe('world');
  });
});

describe('eval (command substitution)', () => {
  const echo = (cmd: string): Promise<string> => Promise.resolve(`<${cmd}>\n`);

  it('runs backticks and $() after references, trimming the output', async () => {
    await expect(resolveEvalValue('`date +%u` $(echo ${params.region}) $NAME', scope, echo)).resolves.toBe(
      '<date +%u> <echo eu> world',
    );
  });

  it('leaves an empty or unclosed backtick, and an unclosed $(, as text', async () => {
    await expect(resolveEvalValue('`` `open', scope, echo)).resolves.toBe('`` `open');
    await expect(resolveEvalValue('$(open', scope, echo)).resolves.toBe('$(open');
  });

  it('keeps an escaped backtick', async () => {
    await expect(resolveEvalValue('a \\`b\\` c', scope, echo)).resolves.toBe('a \\`b\\` c');
  });

  it('rejects a nested substitution', async () => {
    await expect(resolveEvalValue('$(echo $(date))', scope, echo)).rejects.toThrow(
      /nested command substitution is not supported/,
    );
  });

  it('reports a failed command with its text', async () => {
    const fail = (): Promise<string> => Promise.reject(new Error('exit status 1'));
    await expect(resolveEvalValue('`false`', scope, fail)).rejects.toBeInstanceOf(ValueResolutionError);
    await expect(resolveEvalValue('`false`', scope, fail)).rejects.toThrow(
      /failed to execute command "false"/,
    );
  });

  it('passes an escaped $ to the command as a plain $', async () => {
    const seen: string[] = [];
    const record = (cmd: string): Promise<string> => {
      seen.push(cmd);
      return Promise.resolve('ok');
    };
    await resolveEvalValue('`echo \\$HOME`', scope, record);
    expect(seen).toEqual(['echo $HOME']);
  });

  it('resolveValue refuses the eval policy', () => {
    expect(() => resolveValue('`x`', scope, 'eval')).toThrow(ValueResolutionError);
  });
});

describe('Go formatting helpers', () => {
  it.each([
    [1000000, '1e+06'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [8080, '8080'],
    [1.5, '1.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5, '-2.5'],
    [0, '0'],
    [1e21, '1e+21'],
    [100, '100'],
  ])('%d prints as %s', (n, want) => {
    expect(formatGoFloat(n)).toBe(want);
  });

  it('formats JSON values like %v', () => {
    expect(formatGoValue(null)).toBe('<nil>');
    expect(formatGoValue([1, 'a'])).toBe('[1,"a"]');
    expect(formatGoValue({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('quotes like strconv.Quote', () => {
    expect(goQuote('say "hi"\n\t\\')).toBe('"say \\"hi\\"\\n\\t\\\\"');
    expect(goQuote('\x01é')).toBe('"\\x01é"');
  });

  it('selects paths on JSON text', () => {
    expect(resolveJsonPath('[1,2,3]', '[-1]')).toBe('3');
    expect(resolveJsonPath('[1,2,3]', '[5]')).toBe('<nil>');
    expect(resolveJsonPath('{"a":null}', '.a.b.c')).toBe('<nil>');
    expect(resolveJsonPath('{"a b":1}', '."a b"')).toBe('1');
    expect(resolveJsonPath('{"a":1}', '[0]')).toBeUndefined();
    expect(resolveJsonPath('{"a":', '.a')).toBeUndefined();
  });
});

describe('parallel item strings', () => {
  it.each<[string, string[]]>([
    ['["a","b"]', ['a', 'b']],
    ['[1, null, {"b":1,"a":"x"}]', ['1', 'null', '{"a":"x","b":1}']],
    ['{"file":"f"}', ['{"file":"f"}']],
    ['a\nb\n\n c ', ['a', 'b', 'c']],
    ['a, b,,c', ['a', 'b', 'c']],
    ['a;b;c', ['a', 'b', 'c']],
    ['a|b', ['a', 'b']],
    ['a b   c', ['a', 'b', 'c']],
    ['"x y" z "w"', ['x y', 'z', 'w']],
    ['  ', []],
  ])('%j splits into %j', (text, want) => {
    expect(splitParallelItems(text)).toEqual(want);
  });
});
