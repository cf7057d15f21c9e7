import { describe, expect, it } from 'vitest';
import { evaluateDagEnv, paramsJson, splitParams } from './stepEnv';

describe('paramsJson (DAG_PARAMS_JSON)', () => {
  it("writes the keys in byte order and escapes <, > and & as Go's encoder does", () => {
    const params = splitParams(['REGION=<emea>', '10=ten', '2=two', 'AMP=a&b', 'lower=x']);
    expect(paramsJson(params)).toBe(
      '{"10":"ten","2":"two","AMP":"a\\u0026b","REGION":"\\u003cemea\\u003e","lower":"x"}',
    );
  });

  it('puts a bare positional word (an older record) under its place among the positional ones', () => {
    expect(paramsJson(splitParams(['B=1', 'x']))).toBe('{"1":"x","B":"1"}');
  });
});

describe('DAG_PARAMS_JSON of a caller who gave one JSON text', () => {
  const input = (params: string[], json: string | null) => ({
    processEnv: {},
    filteredHost: {},
    params,
    paramsJson: json,
    managed: {},
    context: {},
  });

  it('is that text as it is, in the env and in ${params}, whatever the resolved list holds', () => {
    const run = evaluateDagEnv(input(['DAYS=3', 'REGION=apac'], '{"REGION": "apac", "DAYS": 3}'), {});
    expect(run.vars.DAG_PARAMS_JSON).toBe('{"REGION": "apac", "DAYS": 3}');
    expect(run.vars.DAGU_PARAMS_JSON).toBe('{"REGION": "apac", "DAYS": 3}');
    expect(run.paramsJson).toBe('{"REGION": "apac", "DAYS": 3}');
  });

  it('is set for an empty object too, and written from the list without a JSON text', () => {
    expect(evaluateDagEnv(input([], '{}'), {}).vars.DAG_PARAMS_JSON).toBe('{}');
    expect(evaluateDagEnv(input(['DAYS=3'], null), {}).vars.DAG_PARAMS_JSON).toBe('{"DAYS":"3"}');
    expect(evaluateDagEnv(input([], null), {}).vars.DAG_PARAMS_JSON).toBeUndefined();
  });
});
