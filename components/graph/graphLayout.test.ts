import { describe, expect, it } from 'vitest';
import { assignLayers, DEFAULT_LAYOUT, layoutGraph, orderLayers, stepEdges } from './graphLayout';

const o = DEFAULT_LAYOUT;
const pitchX = o.nodeWidth + o.gapX;
const pitchY = o.nodeHeight + o.gapY;

describe('stepEdges', () => {
  it('draws steps without any depends as a chain in declaration order', () => {
    expect(stepEdges([{ name: 'a' }, { name: 'b' }, { name: 'c' }])).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);
  });

  it('uses depends when any step declares them, treating a missing list as no dependency', () => {
    const edges = stepEdges([{ name: 'a', depends: [] }, { name: 'b' }, { name: 'c', depends: ['a', 'b'] }]);
    expect(edges).toEqual([
      ['a', 'c'],
      ['b', 'c'],
    ]);
  });

  it('drops unknown names, self references and repeated names', () => {
    const edges = stepEdges([
      { name: 'a', depends: ['ghost', 'a'] },
      { name: 'b', depends: ['a', 'a'] },
    ]);
    expect(edges).toEqual([['a', 'b']]);
  });
});

describe('assignLayers', () => {
  it('puts a step one layer after its deepest dependency', () => {
    const steps = [
      { name: 'a', depends: [] },
      { name: 'b', depends: ['a'] },
      { name: 'c', depends: ['b'] },
      { name: 'd', depends: ['a', 'c'] },
    ];
    const layers = assignLayers(steps, stepEdges(steps));
    expect(Object.fromEntries(layers)).toEqual({ a: 0, b: 1, c: 2, d: 3 });
  });

  it('ends on a cycle instead of recursing forever', () => {
    const steps = [
      { name: 'a', depends: ['b'] },
      { name: 'b', depends: ['a'] },
    ];
    const layers = assignLayers(steps, stepEdges(steps));
    expect([...layers.keys()].sort()).toEqual(['a', 'b']);
    expect(new Set(layers.values()).size).toBe(2);
  });
});

describe('orderLayers', () => {
  it('keeps the children of the upper parent above those of the lower one', () => {
    const steps = [
      { name: 'top', depends: [] },
      { name: 'bottom', depends: [] },
      { name: 'under-bottom', depends: ['bottom'] },
      { name: 'under-top', depends: ['top'] },
    ];
    const edges = stepEdges(steps);
    expect(orderLayers(steps, edges, assignLayers(steps, edges))).toEqual([
      ['top', 'bottom'],
      ['under-top', 'under-bottom'],
    ]);
  });

  it('breaks ties by declaration order', () => {
    const steps = [
      { name: 'root', depends: [] },
      { name: 'z', depends: ['root'] },
      { name: 'y', depends: ['root'] },
    ];
    const edges = stepEdges(steps);
    expect(orderLayers(steps, edges, assignLayers(steps, edges))[1]).toEqual(['z', 'y']);
  });
});

describe('layoutGraph', () => {
  it('lays a chain out on one row, left to right, with arrows between neighbours', () => {
    const g = layoutGraph([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    expect(g.nodes.map((n) => [n.name, n.x, n.y])).toEqual([
      ['a', o.padding, o.padding],
      ['b', o.padding + pitchX, o.padding],
      ['c', o.padding + 2 * pitchX, o.padding],
    ]);
    expect(g.edges.map((e) => `${e.from}->${e.to}`)).toEqual(['a->b', 'b->c']);
    expect(g.width).toBe(2 * o.padding + 3 * o.nodeWidth + 2 * o.gapX);
    expect(g.height).toBe(2 * o.padding + o.nodeHeight);
  });

  it('stacks a fan-out and centres the single steps before and after it', () => {
    const g = layoutGraph([
      { name: 'fetch', depends: [] },
      { name: 'left', depends: ['fetch'] },
      { name: 'right', depends: ['fetch'] },
      { name: 'join', depends: ['left', 'right'] },
    ]);
    const at = Object.fromEntries(g.nodes.map((n) => [n.name, n]));
    expect(at.left.y).toBe(o.padding);
    expect(at.right.y).toBe(o.padding + pitchY);
    expect(at.fetch.y).toBe(o.padding + pitchY / 2);
    expect(at.join.y).toBe(at.fetch.y);
    expect(at.join.layer).toBe(2);
    expect(g.height).toBe(2 * o.padding + 2 * o.nodeHeight + o.gapY);
  });

  it('starts each arrow on the right edge of the dependency and ends it on the left edge of the dependent', () => {
    const g = layoutGraph([{ name: 'a' }, { name: 'b' }], {
      nodeWidth: 100,
      nodeHeight: 40,
      gapX: 50,
      padding: 0,
    });
    expect(g.edges[0].path).toBe('M100,20 C125,20 125,20 150,20');
  });

  it('lists nodes in declaration order and draws an empty run as nothing', () => {
    const g = layoutGraph([
      { name: 'b2', depends: ['a1'] },
      { name: 'a1', depends: [] },
    ]);
    expect(g.nodes.map((n) => [n.name, n.layer])).toEqual([
      ['b2', 1],
      ['a1', 0],
    ]);
    expect(layoutGraph([])).toEqual({ nodes: [], edges: [], width: 0, height: 0 });
  });
});
