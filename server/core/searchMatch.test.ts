import { describe, expect, it } from 'vitest';
import { queryWords, rankDags, rankRunIds, runIdQuery, type SearchDoc } from './searchMatch';

const docs: SearchDoc[] = [
  {
    name: 'etl-nightly',
    description: 'Loads the warehouse',
    tags: ['etl', 'daily'],
    steps: [{ name: 'extract', commands: ['python extract.py --source=orders'] }],
  },
  {
    name: 'backup',
    description: 'Copies the database to S3',
    tags: ['ops'],
    steps: [
      { name: 'dump', commands: ['pg_dump shop > /tmp/shop.sql'] },
      { name: 'upload', commands: ['aws s3 cp /tmp/shop.sql s3://backups/'] },
    ],
  },
  { name: 'etl', description: '', tags: [], steps: [] },
];

describe('rankDags', () => {
  it('finds a DAG by a word of one of its step commands, and says where', () => {
    expect(rankDags(docs, 'pg_dump')).toEqual([
      { name: 'backup', score: 10, fields: ['command'], snippet: 'dump: pg_dump shop > /tmp/shop.sql' },
    ]);
  });

  it('ranks an exact name above a prefix above a tag', () => {
    expect(rankDags(docs, 'etl').map((h) => h.name)).toEqual(['etl', 'etl-nightly']);
    expect(rankDags(docs, 'ops').map((h) => [h.name, h.fields])).toEqual([['backup', ['tag']]]);
  });

  it('needs every word somewhere in the DAG, case-insensitively', () => {
    expect(rankDags(docs, 'WAREHOUSE orders').map((h) => h.name)).toEqual(['etl-nightly']);
    expect(rankDags(docs, 'warehouse s3')).toEqual([]);
  });

  it('finds step names and descriptions', () => {
    expect(rankDags(docs, 'upload')[0]).toMatchObject({ name: 'backup', fields: ['step'] });
    expect(rankDags(docs, 'database')[0]).toMatchObject({ name: 'backup', fields: ['description'] });
  });

  it('finds nothing for an empty query and keeps to the limit', () => {
    expect(rankDags(docs, '   ')).toEqual([]);
    expect(rankDags(docs, 'e', 1)).toHaveLength(1);
    expect(queryWords(' a  B ')).toEqual(['a', 'b']);
  });
});

describe('run IDs', () => {
  it('takes one word of run-ID characters as an ID prefix', () => {
    expect(runIdQuery(' sched-abc ')).toBe('sched-abc');
    expect(runIdQuery('two words')).toBeNull();
    expect(runIdQuery('../etc')).toBeNull();
  });

  it('lists the exact ID first, then the others that start with it', () => {
    expect(rankRunIds(['ab2', 'ab', 'b', 'ab1'], 'ab')).toEqual(['ab', 'ab1', 'ab2']);
    expect(rankRunIds(['a1', 'a2', 'a3'], 'a', 2)).toEqual(['a1', 'a2']);
  });
});
