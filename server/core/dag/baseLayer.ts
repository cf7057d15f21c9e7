// The base layer's shape and the part of it that needs no base.yaml: the config's `default_shell` and `tz`.
// Kept apart from baseConfig.ts, which parses base.yaml, so that loading DAGs without a base file (most run
// processes) loads neither the YAML library nor the DAG reader.

/** What every DAG inherits; made once per load by readBaseLayer. */
export interface BaseLayer {
  /** Top-level keys of base.yaml in 2.x spelling, as plain values. */
  values: Record<string, unknown>;
  /** IANA zone of schedules without `CRON_TZ=`, or null. */
  tz: string | null;
}

export interface BaseLayerInput {
  /** Text of base.yaml, or null when there is none. */
  text: string | null;
  /** Its path, for messages. */
  file: string;
  defaultShell?: string | null;
  tz?: string | null;
}

/**
 * The layer from base.yaml's keys (`values`, empty without a base file) and the config's defaults: the
 * default shell when the base sets none, and the zone; null when there is nothing to inherit.
 */
export function layerWithDefaults(
  values: Record<string, unknown>,
  input: Pick<BaseLayerInput, 'defaultShell' | 'tz'>,
): BaseLayer | null {
  const out =
    input.defaultShell && values.shell === undefined ? { ...values, shell: input.defaultShell } : values;
  const tz = input.tz ?? null;
  if (Object.keys(out).length === 0 && tz === null) return null;
  return { values: out, tz };
}
