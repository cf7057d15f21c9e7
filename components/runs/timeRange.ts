// The run list's time filter: presets relative to now (`range=1h`), or a custom range (`from`/`to`, RFC 3339
// UTC in the URL). A preset is turned into its start each time the list is fetched, so a shared link to
// "the last hour" keeps meaning the last hour.

import { DAY, HOUR, MINUTE } from '@/server/core/units';

export interface TimePreset {
  value: string;
  label: string;
  ms: number;
}

export const TIME_PRESETS: readonly TimePreset[] = [
  { value: '1h', label: 'Last hour', ms: HOUR },
  { value: '24h', label: 'Last day', ms: DAY },
  { value: '7d', label: 'Last week', ms: 7 * DAY },
  { value: '30d', label: 'Last 30 days', ms: 30 * DAY },
];

/** The value of the time select for a custom from/to range. */
export const CUSTOM_RANGE = 'custom';

export function isPreset(value: string | undefined): boolean {
  return TIME_PRESETS.some((p) => p.value === value);
}

/**
 * The `from`/`to` of the API query for a filter at `nowMs`: a preset's start (rounded down to the minute, so
 * that polls within a minute ask the same question), else the custom bounds as given.
 */
export function timeBounds(
  filter: { range?: string; from?: string; to?: string },
  nowMs: number,
): { from?: string; to?: string } {
  const preset = TIME_PRESETS.find((p) => p.value === filter.range);
  if (preset) return { from: new Date(Math.floor((nowMs - preset.ms) / MINUTE) * MINUTE).toISOString() };
  return { from: filter.from || undefined, to: filter.to || undefined };
}

/** The value of a `datetime-local` input (local time, to the minute) for an RFC 3339 time; '' for none. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The RFC 3339 UTC time of a `datetime-local` value (read as local time); undefined for '' or invalid. */
export function fromLocalInput(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}
