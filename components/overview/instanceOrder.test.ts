import { describe, expect, it } from 'vitest';
import { instanceRoleTone, sortInstances } from './instanceOrder';
import type { SchedulerInstanceView } from '@/components/apiTypes';

const inst = (id: string, role: SchedulerInstanceView['role']) => ({ id, role });

describe('sortInstances', () => {
  it('puts the active instance first, then standbys, starting, stopped and lost ones', () => {
    const sorted = sortInstances(
      [
        inst('e', 'lost'),
        inst('d', 'stopped'),
        inst('c', 'starting'),
        inst('b', 'standby'),
        inst('a', 'active'),
      ],
      'a',
    );
    expect(sorted.map((i) => i.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('puts the instance the server names active first even if its record still says standby', () => {
    const sorted = sortInstances([inst('a', 'standby'), inst('b', 'standby')], 'b');
    expect(sorted.map((i) => i.id)).toEqual(['b', 'a']);
  });

  it('orders instances of the same role by id and leaves the input untouched', () => {
    const input = [inst('s2', 'standby'), inst('s1', 'standby')];
    expect(sortInstances(input, null).map((i) => i.id)).toEqual(['s1', 's2']);
    expect(input.map((i) => i.id)).toEqual(['s2', 's1']);
  });
});

describe('instanceRoleTone', () => {
  it('gives each role its colour meaning', () => {
    expect(instanceRoleTone('active')).toBe('ok');
    expect(instanceRoleTone('standby')).toBe('info');
    expect(instanceRoleTone('starting')).toBe('warn');
    expect(instanceRoleTone('lost')).toBe('bad');
    expect(instanceRoleTone('stopped')).toBe('neutral');
  });
});
