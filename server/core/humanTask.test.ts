import { describe, expect, it } from 'vitest';
import { canonicalHumanTaskInput, canonicalJson, humanTaskOutputs, parseJsonObject } from './humanTask';
import type { HumanTaskForm } from './types';

const FORM: HumanTaskForm = {
  type: 'object',
  properties: {
    environment: { type: 'string', enum: ['staging', 'production'] },
    replicas: { type: 'integer', minimum: 1, default: 2 },
    notify: { type: 'boolean', default: true },
    note: { type: 'string', maxLength: 5 },
  },
  required: ['environment'],
  additionalProperties: false,
};

const words = (...w: string[]) => ({ kind: 'words' as const, words: w });
const json = (text: string) => ({ kind: 'json' as const, text });

describe('canonicalHumanTaskInput', () => {
  it('coerces --input words, applies defaults and keeps everything after the first =', () => {
    expect(canonicalHumanTaskInput('r', FORM, words('environment=production', ' replicas =3'))).toEqual({
      ok: true,
      input: { environment: 'production', notify: true, replicas: 3 },
    });
    const open = { ...FORM, additionalProperties: true };
    expect(canonicalHumanTaskInput('r', open, words('environment=staging', 'extra=a=b'))).toEqual({
      ok: true,
      input: { environment: 'staging', extra: 'a=b', notify: true, replicas: 2 },
    });
  });

  it('keeps JSON types, so "3" is not an integer; undeclared JSON values stay whole', () => {
    expect(canonicalHumanTaskInput('r', FORM, json('{"environment":"staging","replicas":"3"}'))).toEqual({
      ok: false,
      error: 'human task r: property "replicas": expected integer, got "3"',
    });
    const open = { ...FORM, additionalProperties: true };
    expect(canonicalHumanTaskInput('r', open, json('{"environment":"staging","x":{"a":[1,null]}}'))).toEqual({
      ok: true,
      input: { environment: 'staging', notify: true, replicas: 2, x: { a: [1, null] } },
    });
  });

  it('refuses bad syntax, duplicates, undeclared and invalid values, missing required ones', () => {
    const err = (input: Parameters<typeof canonicalHumanTaskInput>[2], form: HumanTaskForm | null = FORM) => {
      const r = canonicalHumanTaskInput('r', form, input);
      return r.ok ? null : r.error;
    };
    expect(err(words('environment'))).toMatch(/--input "environment" must be key=value/);
    expect(err(words('=x'))).toMatch(/key=value/);
    expect(err(words('environment=staging', 'environment=production'))).toMatch(
      /duplicate property "environment"/,
    );
    expect(err(json('{"environment":"a","environment":"b"}'))).toMatch(/duplicate member "environment"/);
    expect(err(json('{"a":{"b":1,"b":2}}'))).toMatch(/duplicate member "b"/);
    expect(err(json('[1]'))).toMatch(/--inputs-json must be a JSON object/);
    expect(err(json('{"a":1} x'))).toMatch(/--inputs-json is not valid JSON/);
    expect(err(words('environment=dev'))).toMatch(/"environment": enum/);
    expect(err(words('environment=staging', 'replicas=0'))).toMatch(/"replicas": minimum/);
    expect(err(words('environment=staging', 'note=toolong'))).toMatch(/"note": maxLength/);
    expect(err(words('environment=staging', 'other=1'))).toMatch(/"other" is not declared/);
    expect(err(words('replicas=2'))).toMatch(/"environment" is required/);
    expect(err(words('a=1'), null)).toBe('human task r does not accept input');
    expect(err(words(), null)).toBeNull();
  });
});

describe('outputs and canonical JSON', () => {
  it('publishes declared properties only, strings as text and other scalars as JSON', () => {
    const open = { ...FORM, additionalProperties: true };
    expect(humanTaskOutputs(open, { environment: 'staging', replicas: 2, notify: false, x: 'y' })).toEqual({
      environment: 'staging',
      notify: 'false',
      replicas: '2',
    });
  });

  it('ignores member order', () => {
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe(canonicalJson({ a: { c: 2, d: 1 }, b: 1 }));
    expect(parseJsonObject('  {"a": "}"}  ')).toEqual({ ok: true, value: { a: '}' } });
  });
});
