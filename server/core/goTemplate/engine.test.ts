import { describe, expect, it } from 'vitest';
import { GoFloat } from './values';
import { compileTemplate, renderTemplate, TemplateExecError, TemplateParseError } from './index';

const render = (text: string, data: unknown = {}) => renderTemplate(text, data);
const execError = (text: string, data: unknown = {}) => {
  try {
    render(text, data);
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateExecError);
    return (e as Error).message;
  }
  throw new Error('rendered without an error');
};
const parseError = (text: string) => {
  try {
    compileTemplate(text);
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateParseError);
    return (e as Error).message;
  }
  throw new Error('parsed without an error');
};

describe('text and actions', () => {
  it('copies text and prints fields, nested fields and $', () => {
    expect(render('plain ${BAR} `cmd`')).toBe('plain ${BAR} `cmd`');
    expect(render('{{ .a }}-{{ .b.c }}-{{ $.a }}', { a: 'x', b: { c: 'y' } })).toBe('x-y-x');
    expect(render('{{ . }}', 'dot')).toBe('dot');
  });

  it('trims spaces, tabs and line breaks beside {{- and -}}', () => {
    expect(render('a  \n\t{{- .x -}}\n  b', { x: 1 })).toBe('a1b');
    expect(render('a {{- .x }} b', { x: 1 })).toBe('a1 b');
    expect(render('{{-3}}')).toBe('-3');
  });

  it('drops comments, with or without trim markers', () => {
    expect(render('a{{/* note */}}b')).toBe('ab');
    expect(render('a \n{{- /* note */ -}}\n b')).toBe('ab');
  });

  it('reads string, raw string, character, number, bool and nil constants', () => {
    expect(
      render('{{ "a\\tb\\u00e9" }}|{{ `raw\\n` }}|{{ \'a\' }}|{{ 0x1F }}|{{ 0o17 }}|{{ 1_000 }}|{{ true }}'),
    ).toBe('a\tbé|raw\\n|97|31|15|1000|true');
    expect(render('{{ 1.5 }} {{ 3.0 }} {{ 1e6 }} {{ 1000000 }} {{ -2 }}')).toBe('1.5 3 1e+06 1000000 -2');
    expect(execError('{{ nil }}')).toContain('nil is not a command');
  });

  it('passes the previous command value as the last argument', () => {
    expect(render('{{ "a" | printf "%s-%s" "b" }}')).toBe('b-a');
    expect(render('{{ (print "x") | printf "[%s]" }}')).toBe('[x]');
    expect(render('{{ (.m).k }}', { m: { k: 'v' } })).toBe('v');
  });
});

describe("Go's printing rules", () => {
  it('prints maps sorted, lists spaced, nil as <no value> or <nil>', () => {
    const data = { m: { b: 2, a: [1, 'x'] }, l: [true, null], x: null, f: 2.5 };
    expect(render('{{ .m }}|{{ .l }}|{{ .x }}|{{ print .x }}|{{ .f }}', data)).toBe(
      'map[a:[1 x] b:2]|[true <nil>]|<no value>|<nil>|2.5',
    );
    expect(render('{{ .big }} {{ .tiny }}', { big: new GoFloat(2e7), tiny: 0.00001 })).toBe('2e+07 1e-05');
  });

  it('prints like fmt.Sprint, Sprintln and Sprintf', () => {
    expect(render('{{ print 1 2 "a" 3 "b" "c" }}')).toBe('1 2a3bc');
    expect(render('{{ println 1 "a" }}')).toBe('1 a\n');
    expect(
      render(
        '{{ printf "%d|%5s|%-5s|%05.1f|%x|%X|%o|%b|%q|%v|%t|%T|%c|%e|%%" 7 "ab" "cd" 3.14159 255 255 8 5 "q" .l true 1.5 65 1234.5678 }}',
        { l: [1, 2] },
      ),
    ).toBe('7|   ab|cd   |003.1|ff|FF|10|101|"q"|[1 2]|true|float64|A|1.234568e+03|%');
    expect(render('{{ printf "%d %s" "x" }}')).toBe('%!d(string=x) %!s(MISSING)');
    expect(render('{{ printf "%s" "a" "b" }}')).toBe('a%!(EXTRA string=b)');
  });
});

describe('variables', () => {
  it('declares, reads and assigns variables, scoped to their block', () => {
    expect(render('{{ $x := "a" }}{{ $x }}{{ $x = "b" }}{{ $x }}')).toBe('ab');
    expect(render('{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ $y := 3 }}{{ end }}{{ $x }}')).toBe('2');
    expect(render('{{ $v := .a }}{{ $v.b }}', { a: { b: 'deep' } })).toBe('deep');
    expect(parseError('{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}')).toBe(
      'template: template:1: undefined variable "$y"',
    );
  });
});

describe('if, with and range', () => {
  it('chooses branches by truth, with else if', () => {
    const t = '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}';
    expect(render(t, { a: 1, b: 1 })).toBe('A');
    expect(render(t, { a: 0, b: 'x' })).toBe('B');
    expect(render(t, { a: [], b: {} })).toBe('C');
    expect(
      render('{{ if and .a .b }}y{{ else }}n{{ end }}{{ if or .a .b }}y{{ end }}{{ if not .a }}!{{ end }}', {
        a: '',
        b: 1,
      }),
    ).toBe('ny!');
  });

  it('and/or return the deciding value and stop evaluating there', () => {
    expect(render('{{ and 1 0 2 }}|{{ or 0 "" "x" }}|{{ or 0 "" }}|{{ and 1 2 }}')).toBe('0|x||2');
    expect(render('{{ or .a .missing }}', { a: 'first' })).toBe('first');
  });

  it('with sets dot, else with chains', () => {
    const t = '{{ with .a }}[{{ . }}]{{ else with .b }}<{{ . }}>{{ else }}none{{ end }}';
    expect(render(t, { a: 'x', b: 'y' })).toBe('[x]');
    expect(render(t, { a: '', b: 'y' })).toBe('<y>');
    expect(render(t, { a: '', b: 0 })).toBe('none');
  });

  it('ranges over lists, maps in key order and integers, with else, break and continue', () => {
    expect(render('{{ range $i, $v := .l }}{{ $i }}={{ $v }};{{ end }}', { l: ['a', 'b'] })).toBe('0=a;1=b;');
    expect(render('{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}', { m: { z: 1, a: 2 } })).toBe(
      'a=2;z=1;',
    );
    expect(render('{{ range .l }}{{ . }}{{ else }}empty{{ end }}', { l: [] })).toBe('empty');
    expect(render('{{ range .l }}{{ . }}{{ else }}empty{{ end }}', { l: null })).toBe('empty');
    expect(render('{{ range 3 }}{{ . }}{{ end }}')).toBe('012');
    expect(
      render(
        '{{ range .l }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ if eq . 4 }}{{ break }}{{ end }}{{ . }}{{ end }}',
        {
          l: [1, 2, 3, 4, 5],
        },
      ),
    ).toBe('13');
    expect(render('{{ range $v := .l }}{{ $v }}{{ end }}', { l: [7] })).toBe('7');
    expect(execError('{{ range .s }}{{ end }}', { s: 'abc' })).toContain("range can't iterate over abc");
    expect(parseError('{{ break }}')).toBe('template: template:1: {{break}} outside {{range}}');
  });
});

describe('define, template and block', () => {
  it('runs named templates with their own dot', () => {
    expect(
      render('{{ define "x" }}[{{ . }}]{{ end }}{{ template "x" .a }}{{ template "x" }}', { a: 1 }),
    ).toBe('[1][<no value>]');
    expect(render('{{ block "b" .a }}<{{ . }}>{{ end }}', { a: 2 })).toBe('<2>');
    expect(execError('{{ template "nope" }}')).toContain('template "nope" not defined');
    expect(parseError('{{ range .l }}{{ block "b" . }}{{ break }}{{ end }}{{ end }}')).toBe(
      'template: template:1: {{break}} outside {{range}}',
    );
  });
});

describe('built-in functions', () => {
  it('len, index and comparisons', () => {
    const data = { l: [1, 2], m: { k: 'v' }, s: 'héllo' };
    expect(
      render(
        '{{ len .l }} {{ len .m }} {{ len .s }} {{ index .l 1 }} {{ index .m "k" }} {{ index .m "x" }}',
        data,
      ),
    ).toBe('2 1 6 2 v <no value>');
    expect(
      render(
        '{{ eq 1 1 }} {{ eq "a" "b" "a" }} {{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 2.5 }}',
      ),
    ).toBe('true true true true true true false');
    expect(execError('{{ eq 1 "1" }}')).toContain('error calling eq: incompatible types for comparison');
    expect(execError('{{ lt true false }}')).toContain('error calling lt: invalid type for comparison');
    expect(execError('{{ index .l 5 }}', data)).toContain('error calling index: index out of range: 5');
    expect(execError('{{ len 3 }}')).toContain('error calling len: len of type int');
  });

  it('html, js and urlquery escape', () => {
    expect(render(`{{ html "<a href='x'>&\\"" }}`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&#34;');
    expect(render(`{{ js "it's <b>=\\n" }}`)).toBe("it\\'s \\u003Cb\\u003E\\u003D\\u000A");
    expect(render('{{ urlquery "a b&c/é" }}')).toBe('a+b%26c%2F%C3%A9');
  });

  it('call has no function to call in data', () => {
    expect(execError('{{ call .a }}', { a: 'x' })).toContain('error calling call');
  });
});

describe('errors', () => {
  it('reports a missing key (missingkey=error) with its place', () => {
    expect(execError('{{ .undefined_key }}', { name: 'test' })).toBe(
      'template: template:1:3: executing "template" at <.undefined_key>: map has no entry for key "undefined_key"',
    );
    expect(execError('line\n  {{ .a.missing }}', { a: {} })).toBe(
      'template: template:2:5: executing "template" at <.a.missing>: map has no entry for key "missing"',
    );
    expect(execError('{{ .a.b }}', { a: null })).toContain('nil pointer evaluating interface {}.b');
    expect(execError('{{ .a.b }}', { a: 'x' })).toContain("can't evaluate field b in type string");
  });

  it('reports parse errors with the line', () => {
    expect(parseError('{{ env "HOME" }}')).toBe('template: template:1: function "env" not defined');
    expect(parseError('a\n{{ if .x }}')).toBe('template: template:2: unexpected EOF');
    expect(parseError('{{ .x ')).toBe('template: template:1: unclosed action');
    expect(parseError('{{ end }}')).toBe('template: template:1: unexpected {{end}}');
    expect(parseError('{{ }}')).toBe('template: template:1: missing value for command');
    expect(parseError('{{ "a }}')).toBe('template: template:1: unterminated quoted string');
    expect(parseError('{{ 3x }}')).toBe('template: template:1: bad number syntax: "3x"');
    expect(parseError('{{ .a | 3 }}')).toBe(
      'template: template:1: non executable command in pipeline stage 2',
    );
    expect(parseError('{{/* x */ .a }}')).toBe('template: template:1: comment ends before closing delimiter');
    expect(parseError('{{ urlParse "x" }}')).toBe(
      'template: template:1: function "urlParse" is not supported by this product',
    );
  });

  it('reports call errors as Go does', () => {
    expect(execError('{{ add 1 }}')).toContain('at <add>: wrong number of args for add: want 2 got 1');
    expect(execError('{{ upper 3 }}')).toContain('at <3>: expected string; found 3');
    expect(execError('{{ upper .n }}', { n: 3 })).toContain(
      'at <.n>: wrong type for value; expected string; got int',
    );
    expect(execError('{{ .n | upper }}', { n: 3 })).toContain(
      'wrong type for value; expected string; got int',
    );
    expect(execError('{{ add 1.5 1 }}')).toContain('at <1.5>: expected integer; found 1.5');
    expect(execError('{{ upper nil }}')).toContain('cannot assign nil to string');
    expect(execError('{{ upper .x }}', { x: null })).toContain('invalid value; expected string');
    expect(execError('{{ fail "boom" }}')).toContain('at <fail>: error calling fail: boom');
    expect(execError('{{ "a" | .a }}', { a: 'x' })).toContain('a is not a method but has arguments');
    expect(execError('{{ 1 2 }}')).toContain("can't give argument to non-function 1");
  });
});
