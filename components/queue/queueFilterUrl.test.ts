import { describe, expect, it } from 'vitest';
import { isFiltered, queueHref, readQueueFilter } from './queueFilterUrl';

describe('queueHref', () => {
  it('is the bare page without a filter', () => {
    expect(queueHref({})).toBe('/queue');
    expect(queueHref({ dag: '', reason: undefined })).toBe('/queue');
  });

  it('puts the set fields in the query string, in a fixed order, encoded', () => {
    expect(queueHref({ reason: 'held', queue: 'etl q' })).toBe('/queue?queue=etl+q&reason=held');
    expect(queueHref({ selector: '{zone: b}' })).toBe('/queue?selector=%7Bzone%3A+b%7D');
  });
});

describe('readQueueFilter', () => {
  it('reads the known fields, the first value of a repeated one, and drops empty ones', () => {
    expect(readQueueFilter({ dag: ['a', 'b'], queue: '', reason: 'held', other: 'x' })).toEqual({
      dag: 'a',
      reason: 'held',
    });
  });

  it('gives back what queueHref wrote', () => {
    const filter = { queue: 'q', dag: 'd', selector: '{zone: b}', reason: 'held' };
    const params = Object.fromEntries(new URL(queueHref(filter), 'http://console').searchParams);
    expect(readQueueFilter(params)).toEqual(filter);
  });
});

describe('isFiltered', () => {
  it('is true once any field is set', () => {
    expect(isFiltered({})).toBe(false);
    expect(isFiltered({ dag: '' })).toBe(false);
    expect(isFiltered({ selector: '{zone: b}' })).toBe(true);
  });
});
