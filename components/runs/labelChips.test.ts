import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runsQuery } from '../queries';
import { queryKeys } from '../queryKeys';
import { chipLabels, labelSuggestions, normalizeLabelFilter } from './labelChips';
import { runFilterOf, runListHref } from './runFilterUrl';

describe('chipLabels', () => {
  it('shows every label without a limit, and none for a run without labels', () => {
    expect(chipLabels(['team=data', 'nightly'])).toEqual({ shown: ['team=data', 'nightly'], hidden: [] });
    expect(chipLabels(undefined, 3)).toEqual({ shown: [], hidden: [] });
    expect(chipLabels([], 3)).toEqual({ shown: [], hidden: [] });
  });

  it('shows at most `max` labels in order and leaves the rest for "+N"', () => {
    expect(chipLabels(['a', 'b', 'c'], 3)).toEqual({ shown: ['a', 'b', 'c'], hidden: [] });
    expect(chipLabels(['a', 'b', 'c', 'd', 'e'], 3)).toEqual({ shown: ['a', 'b', 'c'], hidden: ['d', 'e'] });
  });
});

describe('normalizeLabelFilter', () => {
  it('trims each part and drops empty ones', () => {
    expect(normalizeLabelFilter(' team=data , nightly,, ')).toBe('team=data,nightly');
    expect(normalizeLabelFilter('!nightly,env=prod-*')).toBe('!nightly,env=prod-*');
  });

  it('is undefined for nothing but blanks and commas', () => {
    expect(normalizeLabelFilter('')).toBeUndefined();
    expect(normalizeLabelFilter(' , ,')).toBeUndefined();
    expect(normalizeLabelFilter(undefined)).toBeUndefined();
    expect(normalizeLabelFilter(null)).toBeUndefined();
  });
});

describe('labelSuggestions', () => {
  it("lists every DAG's labels once, sorted", () => {
    expect(
      labelSuggestions([{ tags: ['team=web', 'nightly'] }, { tags: [] }, { tags: ['nightly', 'team=data'] }]),
    ).toEqual(['nightly', 'team=data', 'team=web']);
  });
});

describe('the run list URL', () => {
  it('keeps the label filter in the query, after the trigger, and reads it back', () => {
    const href = runListHref({ dag: 'etl', trigger: 'manual', labels: 'team=data,!nightly' });
    expect(href).toBe('/runs?dag=etl&trigger=manual&labels=team%3Ddata%2C%21nightly');
    const params = Object.fromEntries(new URL(href, 'http://x').searchParams);
    expect(runFilterOf(params)).toEqual({ dag: 'etl', trigger: 'manual', labels: 'team=data,!nightly' });
  });
});

describe('runsQuery', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("asks the API for the filter's labels, and keys the list by them", async () => {
    const urls: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify({ items: [], next_cursor: null }));
    });
    await new QueryClient().fetchQuery(runsQuery({ labels: 'team=data,!nightly' }));
    expect(urls).toEqual(['/api/v1/runs?labels=team%3Ddata%2C%21nightly&limit=50']);
    expect(queryKeys.runList({ labels: 'team=data' })).not.toEqual(queryKeys.runList({ labels: 'team=web' }));
  });
});
