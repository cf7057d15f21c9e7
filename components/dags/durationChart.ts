// Geometry of the duration charts of a DAG's page: the sparkline beside the history grid and the larger trend
// chart with its median. Input is oldest first; runs without a duration (running, never started) are gaps.

/** The median of the known values, or null when there are none. */
export function median(values: ReadonlyArray<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (known.length === 0) return null;
  const mid = Math.floor(known.length / 2);
  return known.length % 2 === 1 ? known[mid] : (known[mid - 1] + known[mid]) / 2;
}

/** Maps a duration to a y coordinate: 0 ms at the bottom (`height`), `max` at the top (`pad`). */
export function yScale(max: number, height: number, pad = 2): (ms: number) => number {
  const span = Math.max(1, height - 2 * pad);
  return (ms) => round(height - pad - (max > 0 ? (Math.min(ms, max) / max) * span : 0));
}

/** x of the i-th of n points across `width` (a single point sits in the middle). */
export function xAt(i: number, n: number, width: number, pad = 2): number {
  if (n <= 1) return round(width / 2);
  return round(pad + (i * (width - 2 * pad)) / (n - 1));
}

/**
 * An SVG path through the known durations, oldest left: `M x y L x y ...`, starting a new segment (`M`) after
 * a gap so that a missing run is not drawn as a straight line through. Empty when nothing is known.
 */
export function sparklinePath(values: ReadonlyArray<number | null>, width: number, height: number): string {
  const max = Math.max(0, ...values.filter((v): v is number => v !== null));
  const y = yScale(max, height);
  const parts: string[] = [];
  let pen = false;
  values.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    parts.push(`${pen ? 'L' : 'M'}${xAt(i, values.length, width)} ${y(v)}`);
    pen = true;
  });
  return parts.join(' ');
}

/** One bar of the trend chart. */
export interface TrendBar {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TrendGeometry {
  bars: Array<TrendBar | null>;
  /** y of the median line, or null without known durations. */
  medianY: number | null;
  median: number | null;
  /** The top of the scale in ms (a round number at or above the longest run). */
  max: number;
  /** Tick values in ms from 0 to max. */
  ticks: number[];
  y: (ms: number) => number;
}

const MAX_BAR_WIDTH = 24;

/** Bars of the trend chart, one slot per run, oldest left; a run without a duration has no bar. */
export function trendGeometry(
  values: ReadonlyArray<number | null>,
  width: number,
  height: number,
): TrendGeometry {
  const longest = Math.max(0, ...values.filter((v): v is number => v !== null));
  const max = niceCeiling(longest);
  const y = yScale(max, height, 0);
  const slot = values.length > 0 ? width / values.length : width;
  const gap = Math.min(4, slot * 0.2);
  // A few runs get slim bars, centred in their slot, rather than blocks across the chart.
  const barWidth = Math.min(MAX_BAR_WIDTH, slot - gap);
  const bars = values.map((v, i) =>
    v === null
      ? null
      : {
          x: round(i * slot + (slot - barWidth) / 2),
          y: y(v),
          width: round(barWidth),
          height: round(height - y(v)),
        },
  );
  const m = median(values);
  return { bars, medianY: m === null ? null : y(m), median: m, max, ticks: [0, max / 2, max], y };
}

/** The smallest of 1, 2, 5 × 10^k ms (or whole seconds and minutes above them) that is at least `ms`. */
export function niceCeiling(ms: number): number {
  if (ms <= 0) return 1000;
  const exp = 10 ** Math.floor(Math.log10(ms));
  for (const m of [1, 2, 5, 10]) if (m * exp >= ms) return m * exp;
  return 10 * exp;
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}
