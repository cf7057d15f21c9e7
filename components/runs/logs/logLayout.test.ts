import { describe, expect, it } from 'vitest';
import { PAGE_LINES, layoutSources, locate, pagesFor, rowOf, type SourceInfo } from './logLayout';

const sources: SourceInfo[] = [
  { step: 'extract', stream: 'stdout', lines: 3 },
  { step: 'extract', stream: 'stderr', lines: 2 },
  { step: 'load', stream: 'stdout', lines: PAGE_LINES * 2 + 10 },
];

describe('the log console layout', () => {
  it('lays the logs end to end in the order given', () => {
    const layout = layoutSources(sources, { step: null, stream: null });
    expect(layout.total).toBe(5 + PAGE_LINES * 2 + 10);
    expect(layout.segments.map((s) => s.start)).toEqual([0, 3, 5]);
  });

  it('keeps only the step and stream the filter names', () => {
    expect(layoutSources(sources, { step: 'extract', stream: null }).total).toBe(5);
    const stderr = layoutSources(sources, { step: null, stream: 'stderr' });
    expect(stderr.segments).toEqual([{ step: 'extract', stream: 'stderr', lines: 2, start: 0 }]);
  });

  it('finds the log and line of a row, and the row of a line', () => {
    const layout = layoutSources(sources, { step: null, stream: null });
    expect(locate(layout, 0)).toMatchObject({ segment: { step: 'extract', stream: 'stdout' }, line: 0 });
    expect(locate(layout, 4)).toMatchObject({ segment: { step: 'extract', stream: 'stderr' }, line: 1 });
    expect(locate(layout, 5)).toMatchObject({ segment: { step: 'load' }, line: 0 });
    expect(locate(layout, layout.total)).toBeNull();
    expect(locate(layout, -1)).toBeNull();
    expect(rowOf(layout, 'load', 'stdout', 7)).toBe(12);
    expect(rowOf(layout, 'load', 'stderr', 0)).toBeNull();
    expect(rowOf(layout, 'extract', 'stdout', 3)).toBeNull();
  });

  it('skips logs without lines when locating', () => {
    const layout = layoutSources(
      [
        { step: 'a', stream: 'stdout', lines: 0 },
        { step: 'b', stream: 'stdout', lines: 2 },
      ],
      { step: null, stream: null },
    );
    expect(locate(layout, 0)).toMatchObject({ segment: { step: 'b' }, line: 0 });
  });

  it('asks for each page the rows in view need once, with the lines each page has now', () => {
    const layout = layoutSources(sources, { step: null, stream: null });
    expect(pagesFor(layout, 0, 10)).toEqual([
      { step: 'extract', stream: 'stdout', page: 0, known: 3 },
      { step: 'extract', stream: 'stderr', page: 0, known: 2 },
      { step: 'load', stream: 'stdout', page: 0, known: PAGE_LINES },
    ]);
    const end = layout.total - 1;
    expect(pagesFor(layout, end - PAGE_LINES, end)).toEqual([
      { step: 'load', stream: 'stdout', page: 1, known: PAGE_LINES },
      { step: 'load', stream: 'stdout', page: 2, known: 10 },
    ]);
  });
});
