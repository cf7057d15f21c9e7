// The name a DAG file gives its DAG when it has no `name` key. Apart from parseDag so that finding DAG files
// does not load the YAML parser.

/** The DAG name a file gets when it has no `name` key: `dags/etl.yaml` -> `etl`. */
export function dagNameFromFile(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  return base.replace(/\.ya?ml$/i, '');
}
