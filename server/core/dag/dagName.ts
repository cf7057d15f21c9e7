// The name a DAG file gives its DAG when it has no `name` key. Apart from parseDag so that finding DAG files
// does not load the YAML parser.

/** The DAG name a file gets when it has no `name` key: `dags/etl.yaml` -> `etl`. */
export function dagNameFromFile(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  return base.replace(/\.ya?ml$/i, '');
}

/**
 * A DAG under another name (Dagu's `-N/--name`): its default queue, which is its name, follows. The caller
 * checks the name.
 */
export function renamedDag<T extends { name: string; queue: string }>(dag: T, name: string): T {
  return { ...dag, name, queue: dag.queue === dag.name ? name : dag.queue };
}
