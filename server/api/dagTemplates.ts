// The starting points the console offers for a new DAG. Each is a valid DAG under `dagu validate`'s rules
// (a unit test checks it), so a DAG created from one can run at once.

export const DAG_TEMPLATES = ['empty', 'hello', 'chained', 'scheduled'] as const;

export type DagTemplate = (typeof DAG_TEMPLATES)[number];

/** The YAML text of a new DAG made from `template`. */
export function dagTemplateText(template: DagTemplate): string {
  switch (template) {
    case 'empty':
      return ['# What this DAG does, in a line.', 'steps:', '  - name: first', '    run: "true"', ''].join(
        '\n',
      );
    case 'hello':
      return [
        'description: Prints a greeting',
        'steps:',
        '  - name: hello',
        '    run: echo "hello from ${DAG_NAME}"',
        '',
      ].join('\n');
    case 'chained':
      return [
        'description: Three steps, each after the one before',
        'type: chain',
        'steps:',
        '  - name: extract',
        '    run: echo extract',
        '  - name: transform',
        '    run: echo transform',
        '  - name: load',
        '    run: echo load',
        '',
      ].join('\n');
    case 'scheduled':
      return [
        'description: Runs every day at 02:00 in the server time zone',
        'schedule: "0 2 * * *"',
        'steps:',
        '  - name: nightly',
        '    run: echo "nightly run of ${DAG_NAME}"',
        '',
      ].join('\n');
  }
}
