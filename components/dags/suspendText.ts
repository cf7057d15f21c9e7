// The words of the suspend toggle: what the button says and does, and what the confirmation asks, for a DAG
// that is suspended or not. Kept apart from the component so that they are tested without a DOM.

export interface SuspendText {
  /** The button's visible text. */
  label: string;
  /** The button's accessible name, naming the DAG (a list has one button per DAG). */
  ariaLabel: string;
  /** The text while the request is under way. */
  busyLabel: string;
  /** Whether the action asks first (suspending stops a schedule; resuming only lets it run again). */
  confirm: boolean;
}

export function suspendText(dag: string, suspended: boolean): SuspendText {
  return suspended
    ? { label: 'Resume', ariaLabel: `Resume the schedule of ${dag}`, busyLabel: 'Resuming…', confirm: false }
    : {
        label: 'Suspend',
        ariaLabel: `Suspend the schedule of ${dag}`,
        busyLabel: 'Suspending…',
        confirm: true,
      };
}

/** The confirmation's question and explanation before suspending `dag`. */
export function suspendQuestion(dag: string): { title: string; body: string } {
  return {
    title: `Suspend the schedule of ${dag}?`,
    body:
      'No slot of it runs from the next one on, and its scheduled runs still waiting in the queue end aborted. ' +
      'Runs you start by hand still run. Slots skipped while it is suspended are not run after you resume it.',
  };
}

/** The badge's tooltip: since when, if the flag says (a flag Dagu wrote does not). */
export function suspendedSince(
  suspendedAt: string | null | undefined,
  format: (iso: string) => string,
): string {
  return suspendedAt ? `Schedule suspended since ${format(suspendedAt)}` : 'Schedule suspended';
}
