import { durationMs, durationUnits as units } from '../config/duration.js';
import { UsageError } from './usage.js';

export { durationMs };

/** Milliseconds of a duration typed as `30s`, `30m`, `2h` or `7d`: one rule for every command that takes one. */
export function parseDuration(value: string, option: string, maxMs = Infinity): number {
  const ms = durationMs(value) ?? Number.NaN;
  if (!(ms > 0) || ms > maxMs) {
    throw new UsageError(`${option} must be a duration like 30m, 12h or 7d${Number.isFinite(maxMs) ? ` (at most ${maxMs / units.d!}d)` : ''}; got "${value}"`);
  }
  return ms;
}

