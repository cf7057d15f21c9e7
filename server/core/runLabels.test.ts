import { describe, expect, it } from 'vitest';
import {
  LABELS_AND_TAGS,
  labelsFlagText,
  matchesLabelFilters,
  parseLabel,
  parseLabelFilters,
  readLabelsFlag,
  withExtraLabels,
  withRecordedLabels,
} from './runLabels';
import type { DagSpec } from './types';

const dag = (labels: string[]) => ({ name: 'etl', labels, tags: labels }) as unknown as DagSpec;

describe('parseLabel (Dagu ParseLabel)', () => {
  it('splits at the first "=", trims and lowercases both sides, and drops a label without a key', () => {
    expect(parseLabel(' Env = Prod ')).toEqual({ key: 'env', value: 'prod' });
    expect(parseLabel('url=a=b')).toEqual({ key: 'url', value: 'a=b' });
    expect(parseLabel('Critical')).toEqual({ key: 'critical', value: '' });
    expect(parseLabel('team=')).toEqual({ key: 'team', value: '' });
    expect(parseLabel('=orphan')).toBeNull();
    expect(parseLabel('  ')).toBeNull();
  });
});

describe('readLabelsFlag (start/enqueue --labels)', () => {
  it('reads key and key=value labels separated by commas, lowercased, empty parts dropped', () => {
    expect(readLabelsFlag('Workspace=Foo, env=prod,,critical, =x,')).toEqual({
      ok: true,
      labels: ['workspace=foo', 'env=prod', 'critical'],
    });
    expect(readLabelsFlag('')).toEqual({ ok: true, labels: [] });
    expect(readLabelsFlag('path=team/a.b_c-d')).toEqual({ ok: true, labels: ['path=team/a.b_c-d'] });
  });

  it("refuses an invalid label with Dagu's texts, one line per label", () => {
    expect(readLabelsFlag('ok,bad key,-x')).toEqual({
      ok: false,
      error:
        'invalid labels: label "bad key": label key "bad key" contains invalid characters (allowed: a-z, A-Z, 0-9, -, _, .)\n' +
        'label "-x": label key "-x" contains invalid characters (allowed: a-z, A-Z, 0-9, -, _, .)',
    });
    expect(readLabelsFlag('env=pr od')).toEqual({
      ok: false,
      error:
        'invalid labels: label "env=pr od": label value "pr od" contains invalid characters (allowed: a-z, A-Z, 0-9, -, _, ., /)',
    });
    expect(readLabelsFlag('k=/x')).toMatchObject({ ok: false, error: /label value "\/x" contains invalid/ });
    expect(readLabelsFlag(`${'k'.repeat(64)}=v`)).toEqual({
      ok: false,
      error: `invalid labels: label "${'k'.repeat(64)}=v": label key exceeds max length 63`,
    });
    expect(readLabelsFlag(`${'k'.repeat(63)}=${'v'.repeat(255)}`)).toMatchObject({ ok: true });
    expect(readLabelsFlag(`k=${'v'.repeat(256)}`)).toMatchObject({
      ok: false,
      error: /: label value exceeds max length 255$/,
    });
  });
});

describe('labelsFlagText (--labels or its deprecated alias --tags)', () => {
  it('takes either flag, and refuses both, even when one is empty', () => {
    expect(labelsFlagText({})).toEqual({ ok: true, text: undefined });
    expect(labelsFlagText({ labels: 'a' })).toEqual({ ok: true, text: 'a' });
    expect(labelsFlagText({ tags: 'b' })).toEqual({ ok: true, text: 'b' });
    expect(labelsFlagText({ labels: '', tags: 'b' })).toEqual({ ok: false, error: LABELS_AND_TAGS });
    expect(LABELS_AND_TAGS).toBe('labels and deprecated tags cannot both be set');
  });
});

describe('withExtraLabels / withRecordedLabels', () => {
  it("adds the run's labels after the DAG's, once each, and leaves a DAG with nothing to add as it is", () => {
    const d = dag(['team=data', 'nightly']);
    const merged = withExtraLabels(d, ['env=prod', 'nightly', 'env=prod']);
    expect(merged.labels).toEqual(['team=data', 'nightly', 'env=prod']);
    expect(merged.tags).toEqual(merged.labels);
    expect(d.labels).toEqual(['team=data', 'nightly']);
    expect(withExtraLabels(d, ['nightly'])).toBe(d);
    expect(withExtraLabels(d, [])).toBe(d);
  });

  it("puts a recorded run's labels in place of the DAG's, and keeps the DAG's when the record has none", () => {
    const d = dag(['team=data']);
    expect(withRecordedLabels(d, { labels: ['env=prod'] }).labels).toEqual(['env=prod']);
    expect(withRecordedLabels(d, {})).toBe(d);
    expect(withRecordedLabels(d, { labels: [] })).toBe(d);
  });
});

describe('history --labels filters (Dagu LabelFilter, AND)', () => {
  const run = ['env=prod', 'team=data/etl', 'critical'];
  const match = (text: string, labels = run) => matchesLabelFilters(labels, parseLabelFilters(text));

  it('matches a key whatever its value, and key=value exactly, ignoring case', () => {
    expect(match('env')).toBe(true);
    expect(match('CRITICAL')).toBe(true);
    expect(match('Env=Prod')).toBe(true);
    expect(match('env=dev')).toBe(false);
    expect(match('prod')).toBe(false);
    expect(match('env=')).toBe(false);
    expect(match('critical=')).toBe(true);
  });

  it('needs every filter to match', () => {
    expect(match('env=prod, critical')).toBe(true);
    expect(match('env=prod,nightly')).toBe(false);
    expect(match(' , ,')).toBe(true);
  });

  it('matches !key when the key is absent, and globs on keys and values', () => {
    expect(match('!nightly')).toBe(true);
    expect(match('!env')).toBe(false);
    expect(match('env=pr*')).toBe(true);
    expect(match('team=data/*')).toBe(true);
    expect(match('te?m')).toBe(true);
    expect(match('e*=d*')).toBe(false);
    expect(match('*=data/etl')).toBe(true);
    expect(match('env=p.od*')).toBe(false);
    expect(match('a.c*', ['abc'])).toBe(false);
    expect(match('a.c*', ['a.cd'])).toBe(true);
  });

  it('reads recorded labels as Dagu does (a label with no key never matches)', () => {
    expect(match('env=prod', ['ENV=prod'])).toBe(true);
    expect(match('!env', [])).toBe(true);
    expect(match('env', [])).toBe(false);
  });
});
