import { describe, expect, it } from 'vitest';
import { paramsJson, splitParams } from './stepEnv';

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
