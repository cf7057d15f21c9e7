import { describe, expect, it } from 'vitest';
import { selectionOf, shownItems, waitingCountText, withSelected } from './waitingSelection';

const item = (run_id: string) => ({ run_id, dag_name: 'd' });

describe('shownItems', () => {
  it('hides the runs being cancelled and keeps the order of the rest', () => {
    const items = [item('a'), item('b'), item('c')];
    expect(shownItems(items, ['b']).map((i) => i.run_id)).toEqual(['a', 'c']);
    expect(shownItems(items, [])).toEqual(items);
  });
});

describe('selectionOf', () => {
  it('counts only the chosen rows still shown', () => {
    const s = selectionOf(['a', 'c'], new Set(['a', 'b']));
    expect(s).toEqual({ chosen: ['a'], all: false, some: true });
  });

  it('is all when every shown row is chosen, even if a hidden one was chosen too', () => {
    expect(selectionOf(['a'], new Set(['a', 'gone']))).toEqual({ chosen: ['a'], all: true, some: false });
  });

  it('is neither all nor some with nothing shown or nothing chosen', () => {
    expect(selectionOf([], new Set(['a']))).toEqual({ chosen: [], all: false, some: false });
    expect(selectionOf(['a'], new Set())).toEqual({ chosen: [], all: false, some: false });
  });
});

describe('withSelected', () => {
  it('adds and removes ids in a new set, leaving the old one as it was', () => {
    const before = new Set(['a']);
    const added = withSelected(before, ['b', 'c'], true);
    expect([...added]).toEqual(['a', 'b', 'c']);
    expect([...withSelected(added, ['a', 'x'], false)]).toEqual(['b', 'c']);
    expect([...before]).toEqual(['a']);
  });
});

describe('waitingCountText', () => {
  it('gives the number shown when the listing is whole', () => {
    expect(waitingCountText(3, 3, 3)).toBe('3');
    expect(waitingCountText(3, 3, 1)).toBe('1');
  });

  it('says how many of the total are shown when the server sent one page', () => {
    expect(waitingCountText(120, 50, 50)).toBe('showing 50 of 120');
  });

  it('takes runs leaving by a cancel off the total too', () => {
    expect(waitingCountText(120, 50, 48)).toBe('showing 48 of 118');
  });
});
