import { UsageError } from './usage.js';

const units: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration typed as `30s`, `30m`, `2h` or `7d`: one rule for every command that takes one. */
export function parseDuration(value: string, option: string, maxMs = Infinity): number {
  const ms = durationMs(value) ?? Number.NaN;
  if (!(ms > 0) || ms > maxMs) {
    throw new UsageError(`${option} must be a duration like 30m, 12h or 7d${Number.isFinite(maxMs) ? ` (at most ${maxMs / units.d!}d)` : ''}; got "${value}"`);
  }
  return ms;
}

/** A duration, or undefined for a value that is not one (dlq's --since takes a time as well). */
export function durationMs(value: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(value);
  return match ? Number(match[1]) * (units[match[2] as string] as number) : undefined;
}
