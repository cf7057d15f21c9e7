import { describe, expect, it } from 'vitest';
import { suspendedSince, suspendQuestion, suspendText } from './suspendText';

describe('suspendText', () => {
  it('offers to suspend a running schedule, asking first, with an accessible name naming the DAG', () => {
    expect(suspendText('etl', false)).toEqual({
      label: 'Suspend',
      ariaLabel: 'Suspend the schedule of etl',
      busyLabel: 'Suspending…',
      confirm: true,
    });
  });

  it('offers to resume a suspended schedule without asking', () => {
    expect(suspendText('etl', true)).toMatchObject({ label: 'Resume', confirm: false });
    expect(suspendText('etl', true).ariaLabel).toBe('Resume the schedule of etl');
  });

  it('says in the question that nothing is replayed and manual runs still run', () => {
    const q = suspendQuestion('etl');
    expect(q.title).toBe('Suspend the schedule of etl?');
    expect(q.body).toMatch(/not run after you resume/);
    expect(q.body).toMatch(/by hand still run/);
  });

  it('says since when a DAG is suspended when its flag says, and only that it is otherwise', () => {
    expect(suspendedSince('2026-11-30T01:15:00Z', (iso) => `<${iso}>`)).toBe(
      'Schedule suspended since <2026-11-30T01:15:00Z>',
    );
    expect(suspendedSince(null, String)).toBe('Schedule suspended');
  });
});
