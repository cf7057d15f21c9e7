// Addresses of run pages: a run, or a run with one of its steps selected (`?step=`).

/** `/runs/<id>`, or `/runs/<id>?step=<name>` to open the run with that step selected. */
export function runHref(runId: string, step?: string | null): string {
  const base = `/runs/${encodeURIComponent(runId)}`;
  return step ? `${base}?step=${encodeURIComponent(step)}` : base;
}
