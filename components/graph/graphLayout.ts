// Where the console draws a run's steps: layers from `depends` (left to right), rows inside a layer, and
// the arrows between them. Pure and free of React so the browser bundle imports it and tests pin it down.

/** What the layout needs of a step. `depends` absent on every step means the steps ran in order. */
export interface LayoutStep {
  name: string;
  depends?: readonly string[] | null;
}

/** Sizes in SVG user units. */
export interface LayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  /** Horizontal space between layers (where the arrows run). */
  gapX: number;
  /** Vertical space between the nodes of one layer. */
  gapY: number;
  padding: number;
}

/** One step placed on the canvas; x and y are its top-left corner. */
export interface PlacedNode {
  name: string;
  layer: number;
  row: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An arrow from a step to a step that waited for it: an SVG path from the right edge to the left edge. */
export interface PlacedEdge {
  from: string;
  to: string;
  path: string;
}

export interface GraphLayout {
  /** In the steps' declaration order. */
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = {
  nodeWidth: 168,
  nodeHeight: 52,
  gapX: 56,
  gapY: 18,
  padding: 12,
};

/**
 * The edges of the step graph as `[dependency, dependent]` pairs. Records written before steps carried
 * `depends` have none on any step; those runs executed their steps one after another, so they form a chain.
 * Names that are not steps of the run are dropped (the DAG validator reports them, the drawing cannot).
 */
export function stepEdges(steps: readonly LayoutStep[]): Array<[string, string]> {
  const declared = steps.some((s) => s.depends !== undefined && s.depends !== null);
  if (!declared) {
    return steps.slice(1).map((s, i): [string, string] => [steps[i].name, s.name]);
  }
  const names = new Set(steps.map((s) => s.name));
  const edges: Array<[string, string]> = [];
  for (const s of steps) {
    for (const dep of new Set(s.depends ?? [])) {
      if (names.has(dep) && dep !== s.name) edges.push([dep, s.name]);
    }
  }
  return edges;
}

/**
 * Each step's layer: 0 for a step that waits for nothing, else one more than its deepest dependency
 * (longest path), so every arrow points right. An edge that closes a cycle is ignored rather than looping.
 */
export function assignLayers(steps: readonly LayoutStep[], edges: ReadonlyArray<[string, string]>) {
  const deps = new Map<string, string[]>(steps.map((s) => [s.name, []]));
  for (const [from, to] of edges) deps.get(to)?.push(from);
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (name: string): number => {
    const known = layer.get(name);
    if (known !== undefined) return known;
    visiting.add(name);
    let depth = 0;
    for (const dep of deps.get(name) ?? []) {
      if (visiting.has(dep)) continue;
      depth = Math.max(depth, visit(dep) + 1);
    }
    visiting.delete(name);
    layer.set(name, depth);
    return depth;
  };
  for (const s of steps) visit(s.name);
  return layer;
}

/**
 * The steps of each layer, top to bottom. The first layer keeps declaration order; later layers sort by the
 * mean row of their dependencies (ties: declaration order), which keeps fan-outs and their joins in line and
 * removes most crossings of the small graphs DAG files make.
 */
export function orderLayers(
  steps: readonly LayoutStep[],
  edges: ReadonlyArray<[string, string]>,
  layers: ReadonlyMap<string, number>,
): string[][] {
  const depth = Math.max(-1, ...layers.values()) + 1;
  const byLayer: string[][] = Array.from({ length: depth }, () => []);
  for (const s of steps) byLayer[layers.get(s.name)!].push(s.name);
  const declared = new Map(steps.map((s, i) => [s.name, i]));
  const deps = new Map<string, string[]>();
  for (const [from, to] of edges) deps.set(to, [...(deps.get(to) ?? []), from]);
  const row = new Map<string, number>();
  byLayer[0]?.forEach((n, i) => row.set(n, i));
  for (let l = 1; l < depth; l++) {
    const key = (n: string) => {
      const placed = (deps.get(n) ?? []).map((d) => row.get(d)).filter((r) => r !== undefined);
      return placed.length ? placed.reduce((a, b) => a + b, 0) / placed.length : Infinity;
    };
    byLayer[l].sort((a, b) => key(a) - key(b) || declared.get(a)! - declared.get(b)!);
    byLayer[l].forEach((n, i) => row.set(n, i));
  }
  return byLayer;
}

/** Places every step and draws every edge; layers are centred vertically on the tallest one. */
export function layoutGraph(steps: readonly LayoutStep[], options: Partial<LayoutOptions> = {}): GraphLayout {
  const o = { ...DEFAULT_LAYOUT, ...options };
  const unique = steps.filter((s, i) => steps.findIndex((t) => t.name === s.name) === i);
  if (unique.length === 0) return { nodes: [], edges: [], width: 0, height: 0 };
  const edges = stepEdges(unique);
  const layers = assignLayers(unique, edges);
  const ordered = orderLayers(unique, edges, layers);
  const tallest = Math.max(...ordered.map((l) => l.length));
  const pitchY = o.nodeHeight + o.gapY;
  const placed = new Map<string, PlacedNode>();
  ordered.forEach((names, layer) => {
    const offset = ((tallest - names.length) * pitchY) / 2;
    names.forEach((name, row) => {
      placed.set(name, {
        name,
        layer,
        row,
        x: o.padding + layer * (o.nodeWidth + o.gapX),
        y: o.padding + offset + row * pitchY,
        width: o.nodeWidth,
        height: o.nodeHeight,
      });
    });
  });
  return {
    nodes: unique.map((s) => placed.get(s.name)!),
    edges: edges.map(([from, to]) => ({ from, to, path: edgePath(placed.get(from)!, placed.get(to)!) })),
    width: 2 * o.padding + ordered.length * o.nodeWidth + (ordered.length - 1) * o.gapX,
    height: 2 * o.padding + tallest * o.nodeHeight + (tallest - 1) * o.gapY,
  };
}

/** A horizontal S-curve from the middle of `a`'s right edge to the middle of `b`'s left edge. */
function edgePath(a: PlacedNode, b: PlacedNode): string {
  const x1 = a.x + a.width;
  const y1 = a.y + a.height / 2;
  const x2 = b.x;
  const y2 = b.y + b.height / 2;
  const bend = Math.max(16, (x2 - x1) / 2);
  const r = (n: number) => Math.round(n * 10) / 10;
  return `M${r(x1)},${r(y1)} C${r(x1 + bend)},${r(y1)} ${r(x2 - bend)},${r(y2)} ${r(x2)},${r(y2)}`;
}
