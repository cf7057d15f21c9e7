// Reports each corrupt file once per process: readers that poll (the console refreshes every 2 s) would
// otherwise log the same broken file on every pass.

import type { CorruptFileReport } from './fsutil';

const MAX_REMEMBERED = 1000;

/** Wraps `onCorrupt` so that the same path and error are reported only once. */
export function onceReporter(
  onCorrupt?: (report: CorruptFileReport) => void,
): (report: CorruptFileReport) => void {
  const seen = new Set<string>();
  return (report) => {
    if (!onCorrupt) return;
    const key = `${report.path}\n${report.error}`;
    if (seen.has(key)) return;
    if (seen.size >= MAX_REMEMBERED) seen.clear();
    seen.add(key);
    onCorrupt(report);
  };
}
