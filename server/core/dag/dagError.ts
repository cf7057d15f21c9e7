// One problem found in a DAG file, located by file, line, column and field path, and its one-line form.

/** A problem in a DAG file. `field` is a path like `steps[2].retry_policy.limit`; empty for YAML syntax. */
export interface DagError {
  file: string | null;
  /** 1-based; null when the problem has no place in the text (a name taken from the file name). */
  line: number | null;
  column: number | null;
  field: string;
  message: string;
  /**
   * `unsupported`: a Dagu feature this product does not run (containers, ssh, ...), as opposed to a mistake in
   * the file. Both make `dagu validate` and `dagu start` exit 2; the marker lets callers tell them apart.
   */
  kind?: 'unsupported';
}

/** `dags/etl.yaml:12:5: steps[1].depends: step "x" does not exist`, as `dagu validate` prints it. */
export function formatDagError(e: DagError): string {
  let where = e.file ?? '<input>';
  if (e.line !== null) where += `:${e.line}`;
  if (e.line !== null && e.column !== null) where += `:${e.column}`;
  return e.field === '' ? `${where}: ${e.message}` : `${where}: ${e.field}: ${e.message}`;
}
