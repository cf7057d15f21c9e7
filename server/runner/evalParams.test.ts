import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { ParamRichSpec, ParamSpec } from '../core/types';
import { evaluateRunParams } from './evalParams';

function rich(name: string, over: Partial<ParamRichSpec> & { default?: string } = {}): ParamSpec {
  const { default: def, ...checks } = over;
  return {
    name,
    value: def ?? '',
    rich: {
      has_default: def !== undefined,
      eval: null,
      description: '',
      type: null,
      required: false,
      enum: null,
      minimum: null,
      maximum: null,
      min_length: null,
      max_length: null,
      pattern: null,
      ...checks,
    },
  };
}

const opts = {
  baseEnv: { ...process.env, PA_HOST_VALUE: 'host' },
  cwd: tmpdir(),
};
const dagOf = (params: ParamSpec[]) => ({ params, shell: null, shell_args: [] });

async function listOf(params: ParamSpec[], list: string[] = []): Promise<string[]> {
  const r = await evaluateRunParams(dagOf(params), list, opts);
  if (!r.ok) throw new Error(r.error);
  return r.list;
}

describe('evaluateRunParams', () => {
  it('runs backtick and $() substitution in source order, each seeing the earlier values', async () => {
    const params = [
      { name: 'BASE', value: 'base' },
      rich('A', { eval: '`printf "from-${BASE}"`' }),
      rich('B', { eval: '$(printf "%s+dollar" "${params.A}")' }),
      rich('C', { eval: '$(printf "%s" "$B")' }),
    ];
    expect(await listOf(params, ['BASE=base'])).toEqual([
      'BASE=base',
      'A=from-base',
      'B=from-base+dollar',
      'C=from-base+dollar',
    ]);
  });

  it('passes an unresolved reference to the command as written', async () => {
    const params = [
      rich('ENV', { description: 'not given' }),
      rich('S', { eval: "$(printf '%s-api' '${params.ENV}')" }),
    ];
    expect(await listOf(params)).toEqual(['S=${params.ENV}-api']);
  });

  it('resolves host variables of the dagu process before the command runs', async () => {
    expect(await listOf([rich('H', { eval: '$(printf "%s-x" "$PA_HOST_VALUE")' })])).toEqual(['H=host-x']);
  });

  it('does not evaluate a param the caller gave (it is in the list)', async () => {
    const params = [rich('A', { eval: '`exit 9`' })];
    expect(await listOf(params, ['A=given'])).toEqual(['A=given']);
  });

  it('falls back to the default when the command fails', async () => {
    expect(await listOf([rich('A', { eval: '`exit 3`', default: 'fallback' })])).toEqual(['A=fallback']);
  });

  it('fails naming the param when the command fails and there is no default', async () => {
    const r = await evaluateRunParams(dagOf([rich('run_date', { eval: '`exit 3`' })]), [], opts);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^params: parameter "run_date" eval failed: /);
  });

  it('checks the evaluated value against the definition', async () => {
    const params = [rich('N', { eval: '`echo 12`', type: 'integer', maximum: 10 })];
    const r = await evaluateRunParams(dagOf(params), [], opts);
    expect(r).toEqual({ ok: false, error: 'params: parameter "N" must be at most 10, got "12"' });
  });

  it('fails a run whose required param has no value', async () => {
    const r = await evaluateRunParams(dagOf([rich('R', { required: true })]), [], opts);
    expect(r).toEqual({ ok: false, error: 'params: parameter "R" is required' });
  });

  it('fills in declared defaults a stored list lacks, in the declared order', async () => {
    const params = [
      { name: 'A', value: '1' },
      { name: null, value: 'p' },
      { name: 'B', value: '2' },
    ];
    expect(await listOf(params, ['B=x', 'EXTRA=y'])).toEqual(['A=1', '2=p', 'B=x', 'EXTRA=y']);
  });

  it('runs the commands with the DAG shell', async () => {
    const dag = { params: [rich('S', { eval: '$(printf "%s" "$0")' })], shell: 'bash', shell_args: [] };
    const r = await evaluateRunParams(dag, [], opts);
    expect(r).toEqual({ ok: true, list: ['S=bash'] });
  });
});
