import { describe, expect, it } from 'vitest';
import {
  BLOCKED_FUNCTIONS,
  compileTemplate,
  renderTemplate,
  templateFunctions,
  UNSUPPORTED_FUNCTIONS,
} from './index';

const render = (text: string, data: unknown = {}) => renderTemplate(text, data);
const fails = (text: string, data: unknown = {}) => {
  expect(() => render(text, data)).toThrow();
  try {
    render(text, data);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

/** Each row: template, data, expected output. */
type Row = [string, unknown, string];

function table(rows: Row[]): void {
  for (const [text, data, want] of rows) expect(render(text, data), text).toBe(want);
}

describe("Dagu's overrides (pipeline value last)", () => {
  it('split, join, count, add, empty, upper, lower, trim, default', () => {
    table([
      ['{{ .csv | split "," | join ";" }}', { csv: 'a,b,c' }, 'a;b;c'],
      ['{{ split "" "ab" }}', {}, '[a b]'],
      ['{{ .l | join "-" }}|{{ .n | join "," }}', { l: [1, 'x', null], n: null }, '1-x-<nil>|'],
      [
        '{{ .l | count }} {{ .m | count }} {{ "héllo" | count }} {{ .n | count }}',
        { l: [1, 2], m: { a: 1 }, n: null },
        '2 1 6 0',
      ],
      ['{{ 5 | add 3 }} {{ add 2 -7 }}', {}, '8 -5'],
      [
        '{{ empty "" }} {{ empty 0 }} {{ empty .l }} {{ empty .m }} {{ empty false }} {{ empty "x" }} {{ empty .n }}',
        { l: [], m: {}, n: null },
        'true true true true true false true',
      ],
      ['{{ "straße" | upper }} {{ "İX" | lower }}', {}, 'STRAßE ix'],
      ['{{ "Ab" | upper }} {{ "Ab" | lower }} [{{ "  a b \\n" | trim }}]', {}, 'AB ab [a b]'],
      [
        '{{ .a | default "d" }} {{ .b | default "d" }} {{ 0 | default 5 }} {{ .l | default (list 1) }}',
        { a: '', b: 'set', l: [] },
        'd set 5 [1]',
      ],
    ]);
    expect(fails('{{ "a" | join "," }}')).toContain('error calling join: join: unsupported type string');
    expect(fails('{{ 3 | count }}')).toContain('count: unsupported type int');
    expect(fails('{{ 1.5 | add 1 }}')).toContain('wrong type for value; expected int; got float64');
    expect(fails('{{ default "x" }}')).toContain('wrong number of args for default: want 2 got 1');
  });
});

describe('slim-sprig string functions', () => {
  it('work with the piped value last', () => {
    table([
      ['{{ "hello" | trunc 3 }} {{ trunc -2 "hello" }} {{ trunc 9 "hi" }}', {}, 'hel lo hi'],
      ['{{ title "hello wide-world" }}', {}, 'Hello Wide-World'],
      ['{{ substr 1 3 "hello" }} {{ substr -1 2 "hello" }} {{ substr 2 -1 "hello" }}', {}, 'el he llo'],
      ['{{ "ab" | repeat 3 }}', {}, 'ababab'],
      [
        '{{ trimAll "$" "$$5$" }} {{ trimall "-" "-a-" }} {{ trimSuffix ".txt" "a.txt" }} {{ trimPrefix "v" "v1" }}',
        {},
        '5 a a 1',
      ],
      [
        '{{ "foobar" | contains "oba" }} {{ hasPrefix "foo" "foobar" }} {{ hasSuffix "x" "foobar" }}',
        {},
        'true true false',
      ],
      [
        '{{ quote "a\\"b" 1 .n }} {{ squote "a" 2 }} {{ cat "a" 1 .n "b" }}',
        { n: null },
        '"a\\"b" "1" \'a\' \'2\' a 1 b',
      ],
      ['{{ "a\\nb" | indent 2 }}|{{ "x" | nindent 1 }}', {}, '  a\n  b|\n x'],
      ['{{ "a b a" | replace "a" "o" }}', {}, 'o b o'],
      ['{{ plural "one" "many" 1 }} {{ plural "one" "many" 2 }}', {}, 'one many'],
      ['{{ sha1sum "abc" }}', {}, 'a9993e364706816aba3e25717850c26c9cd0d89d'],
      ['{{ sha256sum "abc" }}', {}, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      ['{{ adler32sum "Wikipedia" }}', {}, '300286872'],
      ['{{ toString 1.5 }} {{ toString .l }}', { l: [1] }, '1.5 [1]'],
      ['{{ hello }}', {}, 'Hello!'],
    ]);
  });

  it('splitList, splitn and toStrings', () => {
    table([
      [
        '{{ splitList "," "a,b" }} {{ (splitn "," 2 "a,b,c")._1 }} {{ toStrings .l }}',
        { l: [1, null, 'x'] },
        '[a b] b,c [1 x]',
      ],
      ['{{ typeOf (splitList "," "a") }} {{ typeOf (toStrings .l) }}', { l: [1] }, '[]string []string'],
    ]);
  });
});

describe('slim-sprig number functions', () => {
  it('convert and compute as slim-sprig does', () => {
    table([
      [
        '{{ atoi "42" }} {{ atoi "x" }} {{ int "7" }} {{ int64 3.9 }} {{ float64 "1.5" }} {{ int true }}',
        {},
        '42 0 7 3 1.5 1',
      ],
      ['{{ add1 1 }} {{ sub 5 2 }} {{ div 7 2 }} {{ mod 7 2 }} {{ mul 2 3 4 }}', {}, '2 3 3 1 24'],
      [
        '{{ max 1 5 3 }} {{ biggest 2 9 }} {{ min 4 2 8 }} {{ maxf 1.5 2.5 }} {{ minf 1.5 2.5 }}',
        {},
        '5 9 2 2.5 1.5',
      ],
      ['{{ ceil 1.2 }} {{ floor 1.8 }} {{ round 3.14159 2 }} {{ round 2.5 0 }}', {}, '2 1 3.14 3'],
      [
        '{{ seq 3 }} | {{ seq 2 4 }} | {{ seq 0 2 6 }} | {{ seq 3 1 }}',
        {},
        '1 2 3 | 2 3 4 | 0 2 4 6 | 3 2 1',
      ],
      ['{{ until 3 }} {{ untilStep 0 10 4 }} {{ toDecimal "777" }}', {}, '[0 1 2] [0 4 8] 511'],
    ]);
    expect(fails('{{ div 1 0 }}')).toContain('error calling div: runtime error: integer divide by zero');
  });
});

describe('slim-sprig lists and dicts', () => {
  it('build and read lists', () => {
    const data = { l: [3, 1, 2], s: ['b', 'a', 'b'] };
    table([
      ['{{ list 1 "a" }} {{ tuple }}', {}, '[1 a] []'],
      [
        '{{ append .l 4 }} {{ push .l 4 }} {{ prepend .l 0 }} {{ .l }}',
        data,
        '[3 1 2 4] [3 1 2 4] [0 3 1 2] [3 1 2]',
      ],
      [
        '{{ first .l }} {{ last .l }} {{ rest .l }} {{ initial .l }} {{ reverse .l }}',
        data,
        '3 2 [1 2] [3 1] [2 1 3]',
      ],
      ['{{ first .e }} {{ rest .e }}', { e: [] }, '<no value> []'],
      [
        '{{ uniq .s }} {{ sortAlpha .s }} {{ without .l 1 3 }} {{ has 2 .l }} {{ has 9 .l }}',
        data,
        '[b a] [a b b] [2] true false',
      ],
      [
        '{{ compact (list 0 "" 1 "a") }} {{ concat .l .s }} {{ chunk 2 .l }}',
        data,
        '[1 a] [3 1 2 b a b] [[3 1] [2]]',
      ],
      ['{{ slice .l 1 }} {{ slice .l 0 2 }} {{ slice .l }}', data, '[1 2] [3 1] [3 1 2]'],
      ['{{ mustFirst .l }} {{ mustUniq .s }}', data, '3 [b a]'],
    ]);
    expect(fails('{{ push "x" 1 }}')).toContain('error calling push: Cannot push on type string');
    expect(fails('{{ slice "x" 1 }}')).toContain('list should be type of slice or array but string');
  });

  it('build and read dicts', () => {
    const data = { app: { name: 'MyApp', deep: { x: 1 } } };
    table([
      ['{{ get .app "name" }}|{{ get .app "owner" }}', data, 'MyApp|'],
      [
        '{{ hasKey .app "name" }} {{ keys .app }} {{ values (dict "b" 2 "a" 1) }}',
        data,
        'true [deep name] [1 2]',
      ],
      ['{{ dict "a" 1 "b" }}', {}, 'map[a:1 b:]'],
      [
        '{{ $d := dict "a" 1 }}{{ $_ := set $d "b" 2 }}{{ $d }} {{ unset $d "a" }}',
        {},
        'map[a:1 b:2] map[b:2]',
      ],
      ['{{ pick .app "name" }} {{ omit .app "deep" }}', data, 'map[name:MyApp] map[name:MyApp]'],
      ['{{ pluck "a" (dict "a" 1) (dict "b" 2) (dict "a" 3) }}', {}, '[1 3]'],
      ['{{ dig "deep" "x" "none" .app }} {{ dig "deep" "y" "none" .app }}', data, '1 none'],
    ]);
    expect(fails('{{ get "x" "k" }}')).toContain('can\'t handle "x" for arg of type map[string]interface {}');
    expect(fails('{{ get .s "k" }}', { s: 'x' })).toContain('expected map[string]interface {}; got string');
  });
});

describe('slim-sprig defaults, JSON, reflection, paths, encodings, regexps', () => {
  it('defaults and flow control', () => {
    table([
      [
        '{{ coalesce "" 0 "x" }} {{ all 1 "a" }} {{ all 1 "" }} {{ any 0 "" }} {{ any 0 1 }}',
        {},
        'x true false false true',
      ],
      ['{{ ternary "yes" "no" true }} {{ false | ternary "yes" "no" }}', {}, 'yes no'],
    ]);
    expect(fails('{{ fail "stop here" }}')).toContain('error calling fail: stop here');
  });

  it('JSON as Go encodes and decodes it', () => {
    const data = { m: { b: '<&>', a: [1, 2.5] } };
    table([
      ['{{ toJson .m }}', data, '{"a":[1,2.5],"b":"\\u003c\\u0026\\u003e"}'],
      ['{{ toRawJson .m }}', data, '{"a":[1,2.5],"b":"<&>"}'],
      ['{{ toPrettyJson (dict "a" 1) }}', {}, '{\n  "a": 1\n}'],
      [
        '{{ (fromJson "{\\"n\\":1000000,\\"s\\":\\"x\\"}").n }} {{ fromJson "nope" }}',
        {},
        '1e+06 <no value>',
      ],
      ['{{ mustToJson (list 1) }} {{ (mustFromJson "[1,2]") }}', {}, '[1] [1 2]'],
    ]);
    expect(fails('{{ mustFromJson "{" }}')).toContain('error calling mustFromJson');
  });

  it('reflection', () => {
    const data = { s: 'x', i: 3, f: 1.5, b: true, l: [], m: {}, n: null };
    table([
      [
        '{{ typeOf .s }} {{ typeOf .i }} {{ typeOf .f }} {{ typeOf .b }} {{ typeOf .l }} {{ typeOf .m }} {{ typeOf .n }}',
        data,
        'string int float64 bool []interface {} map[string]interface {} <nil>',
      ],
      [
        '{{ kindOf .l }} {{ kindOf .m }} {{ kindIs "string" .s }} {{ typeIs "int" .i }} {{ typeIsLike "int" .i }}',
        data,
        'slice map true true true',
      ],
      ['{{ deepEqual (list 1 2) (list 1 2) }} {{ deepEqual 1 1.0 }}', {}, 'true false'],
    ]);
  });

  it("paths as Go's path package", () => {
    table([
      [
        '{{ base "/a/b.txt" }} {{ base "/a/" }} {{ base "" }} {{ dir "/a/b/c" }} {{ dir "x" }}',
        {},
        'b.txt a . /a/b .',
      ],
      [
        '{{ clean "a//b/../c/." }} {{ clean "/../x" }} {{ ext "a/b.tar.gz" }} {{ isAbs "/x" }} {{ osBase "a/b" }}',
        {},
        'a/c /x .gz true b',
      ],
      ['{{ osClean "./a/" }} {{ osDir "/a/b" }} {{ osExt "x.y" }} {{ osIsAbs "x" }}', {}, 'a /a .y false'],
    ]);
  });

  it('base64 and base32', () => {
    table([
      [
        '{{ b64enc "hello" }} {{ b64dec "aGVsbG8=" }} {{ b32enc "hi" }} {{ b32dec "NBUQ====" }}',
        {},
        'aGVsbG8= hello NBUQ==== hi',
      ],
      ['{{ b64dec "!!" }}', {}, 'illegal base64 data at input byte 0'],
    ]);
  });

  it('regular expressions with Go semantics', () => {
    table([
      [
        '{{ regexMatch "^[a-z]+$" "abc" }} {{ regexMatch "(?i)^ABC$" "abc" }} {{ regexMatch "(" "x" }}',
        {},
        'true true false',
      ],
      [
        '{{ regexFindAll "a." "a1a2a3" 2 }} {{ regexFindAll "x*" "axb" -1 }} {{ regexFind "[0-9]+" "ab12c" }}',
        {},
        '[a1 a2] [ x ] 12',
      ],
      [
        '{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "${1}W" }} {{ regexReplaceAll "(?P<w>o)" "foo" "[$w]" }}',
        {},
        '-W-xxW- f[o][o]',
      ],
      [
        '{{ regexReplaceAllLiteral "a" "banana" "$1" }} {{ regexSplit "," "a,b,c" 2 }} {{ regexQuoteMeta "a.b*" }}',
        {},
        'b$1n$1n$1 [a b,c] a\\.b\\*',
      ],
      [
        '{{ mustRegexMatch "b" "abc" }} {{ mustRegexFindAll "b" "abcb" -1 }} {{ mustRegexReplaceAll "b" "abc" "x" }}',
        {},
        'true [b b] axc',
      ],
      [
        '{{ mustRegexFind "c" "abc" }} {{ mustRegexReplaceAllLiteral "b" "abc" "$" }} {{ mustRegexSplit "b" "abc" -1 }}',
        {},
        'c a$c [a c]',
      ],
    ]);
    expect(fails('{{ regexFind "(" "x" }}')).toContain('error calling regexFind: regexp: Compile(`(`)');
    expect(fails('{{ mustRegexMatch "(" "x" }}')).toContain('error parsing regexp');
  });
});

describe('the function map', () => {
  it('has no blocked function and refuses the unsupported ones at parse time', () => {
    const funcs = templateFunctions();
    for (const name of BLOCKED_FUNCTIONS) {
      expect(funcs.has(name), name).toBe(false);
      expect(() => compileTemplate(`{{ ${name} }}`)).toThrow(`function "${name}" not defined`);
    }
    for (const name of UNSUPPORTED_FUNCTIONS) {
      expect(() => compileTemplate(`{{ ${name} }}`)).toThrow('is not supported by this product');
    }
  });
});

describe('Go regular expression syntax', () => {
  it('reads RE2 forms JavaScript spells otherwise', () => {
    table([
      [
        '{{ regexMatch "\\\\pL+" "héllo" }} {{ regexFind "[[:digit:]]+" "ab123" }} {{ regexReplaceAll "a\\\\-b" "a-b" "X" }}',
        {},
        'true 123 X',
      ],
      [
        '{{ regexFind "{x}" "a{x}" }} {{ regexFind "[]a]+" "x]a]" }} {{ regexFind "\\\\x{41}" "zA" }}',
        {},
        '{x} ]a] A',
      ],
      [
        '{{ regexFind "\\\\Aab\\\\z" "ab" }} {{ regexFind "\\\\Q.*\\\\E" "a.*b" }} {{ regexFindAll "." "h€😀" -1 }}',
        {},
        'ab .* [h € 😀]',
      ],
      ['{{ regexSplit "\\\\s+" "a \\t b" -1 }} {{ regexMatch "\\\\s" "\\u000b" }}', {}, '[a b] false'],
    ]);
  });

  it('rejects what RE2 rejects: back-references and look-around', () => {
    expect(render('{{ regexMatch "(a)\\\\1" "aa" }}')).toBe('false');
    expect(fails('{{ mustRegexMatch "(?=a)" "a" }}')).toContain(
      'error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    );
    expect(fails('{{ mustRegexFind "(a)\\\\1" "aa" }}')).toContain(
      'error parsing regexp: invalid escape sequence: `\\1`',
    );
  });
});
