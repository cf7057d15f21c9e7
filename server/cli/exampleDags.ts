// Example DAGs written into a new DAGU_HOME on first start, so a fresh install has something to run.

export const EXAMPLE_DAGS: Record<string, string> = {
  'example-every-minute.yaml': `# Runs every minute. Its run IDs are derived from the slot (sched-<hash>-<slot>).
description: Prints the slot it was scheduled for, every minute
labels: [example]
schedule: "* * * * *"
steps:
  - name: hello
    run: echo "hello from slot $DAG_RUN_SCHEDULE_TIME (run $DAG_RUN_ID)"
`,
  'example-pipeline.yaml': `# Dependent steps: extract, then two transforms in parallel, then load.
description: A small extract / transform / load graph with parameters
labels: [example]
params:
  - TARGET=warehouse
steps:
  - name: extract
    run: echo "extracting rows"
    output: ROWS
  - name: transform_a
    depends: extract
    run: echo "transform A of [$ROWS]"
  - name: transform_b
    depends: extract
    run: |
      for i in 1 2 3; do echo "transform B part $i"; done
  - name: load
    depends: [transform_a, transform_b]
    run: echo "loading into $TARGET"
`,
  'example-retry.yaml': `# A step that fails on its first try and succeeds when retried.
description: Shows a failing step being retried with backoff
labels: [example]
type: chain
steps:
  - name: flaky
    run: |
      marker="\${TMPDIR:-/tmp}/dagu-example-retry-$DAG_RUN_ID"
      if [ ! -f "$marker" ]; then
        touch "$marker"
        echo "first try fails" >&2
        exit 1
      fi
      rm -f "$marker"
      echo "second try succeeds"
    retry_policy:
      limit: 2
      interval_sec: 1
      backoff: 2
  - name: always_fails
    run: echo "this step always fails" >&2; exit 3
    retry_policy:
      limit: 1
      interval_sec: 1
handler_on:
  failure:
    run: echo "the run failed; a failure handler ran"
`,
};
