import { Text } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { diagnosticRange } from './diagnostics';

const doc = Text.of(['steps:', '  - name: a', '    depends: [ghost]', '']);

describe('diagnosticRange', () => {
  it('marks from the column to the end of the line', () => {
    const { from, to } = diagnosticRange(doc, 3, 14);
    expect(doc.sliceString(from, to)).toBe('[ghost]');
  });

  it('marks the first line when the problem has no place in the text', () => {
    expect(diagnosticRange(doc, null, null)).toEqual({ from: 0, to: 6 });
  });

  it('clamps a line or column beyond the text', () => {
    expect(diagnosticRange(doc, 99, 1)).toEqual({ from: doc.length, to: doc.length });
    expect(diagnosticRange(doc, 1, 99)).toEqual({ from: 6, to: 6 });
  });
});
