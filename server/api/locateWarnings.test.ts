import { describe, expect, it } from 'vitest';
import { locateWarnings } from './locateWarnings';

const TEXT = [
  'max_active_runs: 2',
  'steps:',
  '  - name: a',
  '    command: echo a',
  '---',
  'name: child',
  'steps:',
  '  - name: b',
  '    shell: bash',
  '',
].join('\n');

describe('locateWarnings', () => {
  it('places a warning at the first field it names that the document has', () => {
    expect(
      locateWarnings(TEXT, [
        'Deprecated DAG syntax: steps[0].command is deprecated; use run',
        'max_active_runs=2 is deprecated; use a global queue (queue: NAME) to bound concurrent runs',
        'type: steps without depends start at once',
      ]),
    ).toEqual([
      { line: 4, column: 5, field: 'steps[0].command' },
      { line: 1, column: 1, field: 'max_active_runs' },
      { line: 2, column: 1, field: 'steps' }, // no `type:` in the file: the next field named
    ]);
  });

  it('looks in the document a local DAG warning names, and gives null when no field is found', () => {
    expect(
      locateWarnings(TEXT, ['document 2 (child): steps[0].shell is deprecated', 'the file is 1.x']),
    ).toEqual([{ line: 9, column: 5, field: 'steps[0].shell' }, null]);
  });
});
