import { describe, expect, it } from 'vitest';
import { groupDags, parseCollapsed } from './dagGroups';

const dag = (name: string, group = '') => ({ name, group });

describe('groupDags', () => {
  it('lists the DAGs of no group first, then each group by name, keeping the given order inside', () => {
    const groups = groupDags([dag('a', 'etl'), dag('b'), dag('c', 'billing'), dag('d', 'etl'), dag('e')]);
    expect(groups.map((g) => [g.name, g.dags.map((d) => d.name)])).toEqual([
      [null, ['b', 'e']],
      ['billing', ['c']],
      ['etl', ['a', 'd']],
    ]);
  });

  it('gives one section without a heading when no DAG has a group', () => {
    expect(groupDags([dag('a'), dag('b')])).toEqual([{ name: null, dags: [dag('a'), dag('b')] }]);
    expect(groupDags([])).toEqual([]);
  });

  it('reads a group of blanks as none', () => {
    expect(groupDags([dag('a', '  ')]).map((g) => g.name)).toEqual([null]);
  });
});

describe('parseCollapsed', () => {
  it('reads the stored names and ignores anything else', () => {
    expect([...parseCollapsed('["etl","billing"]')]).toEqual(['etl', 'billing']);
    expect([...parseCollapsed('["etl",3,null]')]).toEqual(['etl']);
    expect(parseCollapsed('not json').size).toBe(0);
    expect(parseCollapsed('{"etl":true}').size).toBe(0);
    expect(parseCollapsed(null).size).toBe(0);
  });
});
