import { expect, it } from 'vitest';
import { encodeRetryPath, nextLevel, parseRetryPath, type RetryPath } from './retryPath';

const path: RetryPath = {
  hops: [
    { step: 'mid_call', run_id: 'r-mid' },
    { step: 'fan', run_id: 'r-leaf' },
  ],
  step: 'build',
  downstream: true,
};

it('hands each level the step it retries and the rest of the path', () => {
  const first = nextLevel(path);
  expect(first).toEqual({ step: 'fan', rest: { ...path, hops: [{ step: 'fan', run_id: 'r-leaf' }] } });
  expect(nextLevel(first.rest!)).toEqual({ step: 'build', rest: null });
});

it('reads back what it writes and refuses anything else', () => {
  expect(parseRetryPath(encodeRetryPath(path))).toEqual({ ok: true, path });
  for (const bad of [
    '',
    'null',
    '[]',
    '{"hops":[],"step":"x","downstream":false}',
    '{"hops":[{"step":"a"}],"step":"x","downstream":false}',
    '{"hops":[{"step":"a","run_id":"b"}],"step":"","downstream":false}',
  ])
    expect(parseRetryPath(bad).ok, bad).toBe(false);
});
