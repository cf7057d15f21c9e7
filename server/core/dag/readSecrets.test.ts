import { expect, it } from 'vitest';
import { parseDag } from './parseDag';

function load(secrets: string) {
  const r = parseDag(`secrets:\n${secrets}\nsteps:\n  - echo hi\n`, {
    file: '/srv/dags/s.yaml',
    defaultName: 's',
  });
  if (!r.ok) return { errors: r.errors.map((e) => `${e.field}: ${e.message}`), secrets: null };
  return { errors: [] as string[], secrets: r.dag.secrets };
}

it('reads env and file secrets in order', () => {
  expect(load('  - {name: A, provider: env, key: K}\n  - {name: _b2, provider: file, key: ./f.txt}')).toEqual(
    {
      errors: [],
      secrets: [
        { name: 'A', provider: 'env', key: 'K' },
        { name: '_b2', provider: 'file', key: './f.txt' },
      ],
    },
  );
});

it('checks names, forms and providers as Dagu does, each with its own message', () => {
  const { errors } = load(
    [
      '  - {name: 1X, provider: env, key: K}',
      '  - {name: DAGU_X, provider: env, key: K}',
      '  - {name: DAG_RUN_STATUS, provider: env, key: K}',
      '  - {name: A, provider: env, key: K}',
      '  - {name: A, provider: env, key: K}',
      '  - {name: B, provider: env}',
      '  - {name: C, ref: Team/X}',
      '  - {name: D, provider: aws, key: k}',
      '  - {name: E, provider: magic, key: k}',
      '  - {provider: env, key: k}',
      '  - {name: F, provider: env, key: k, extra: 1}',
      '  - just-a-string',
    ].join('\n'),
  );
  expect(errors).toEqual([
    'secrets[0]: secret "1X" must be a valid environment variable name',
    'secrets[1]: secret "DAGU_X" must not start with DAGU_',
    'secrets[2]: secret "DAG_RUN_STATUS" collides with Dagu-managed runtime environment variable',
    'secrets[4]: duplicate secret name "A"',
    "secrets[5]: secret \"B\": exactly one of 'ref' or 'provider' plus 'key' is required",
    'secrets[6]: secret "C": registry ref must be a slash-separated lowercase slug path',
    "secrets[7].provider: Dagu's aws secret provider is not supported by this product (it does not talk to AWS Secrets Manager; use provider env or file)",
    'secrets[8].provider: unknown secret provider: magic',
    "secrets[9]: secret at index 9: 'name' field is required",
    expect.stringContaining('secrets[10].extra'),
    expect.stringContaining('secrets[11]: a secret must be a map'),
  ]);
});
