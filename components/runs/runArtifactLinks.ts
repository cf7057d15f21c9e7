// How the run page names a run's artifacts: the download address of one, and its size as people read it.

/** The download address of one artifact. */
export function artifactDownloadUrl(runId: string, path: string): string {
  return `/api/v1/runs/${encodeURIComponent(runId)}/artifacts/download?path=${encodeURIComponent(path)}`;
}

/** A size in bytes as people read it (B, KiB, MiB). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
