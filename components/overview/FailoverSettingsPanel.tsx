// The failover settings in force, as the schedulers read them: T, R, I and the takeover bound T + 2R.

import type { FailoverSettings } from '../apiTypes';
import { Field } from '../Panels';

export function FailoverSettingsPanel({ settings: s }: { settings: FailoverSettings }) {
  return (
    <section
      aria-labelledby="settings-heading"
      data-testid="failover-settings"
      className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id="settings-heading" className="text-lg font-semibold">
        Failover settings
      </h2>
      <dl className="mt-3 grid grid-cols-2 gap-4 text-sm md:grid-cols-5">
        <Field label="T · stale threshold">
          <span className="font-mono">{s.lock_stale_threshold}</span>
        </Field>
        <Field label="R · retry interval">
          <span className="font-mono">{s.lock_retry_interval}</span>
        </Field>
        <Field label="I · renewal interval">
          <span className="font-mono">{s.renewal_interval}</span>
        </Field>
        <Field label="Bound T + 2R">
          <span className="font-mono font-semibold">{s.takeover_bound}</span>
        </Field>
        <Field label="Recovery window">
          <span className="font-mono">{s.failover_recovery_window}</span>
        </Field>
      </dl>
      <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">
        The active scheduler renews its lock every I. A standby tries the lock every R and takes it once the
        last renewal is older than T, so a failover takes at most T + 2R. After taking over from a failed
        instance, missed slots of the last recovery window are run.
      </p>
    </section>
  );
}
