// A duration as typed on a command line or in a variable: `30s`, `30m`, `2h`, `7d`. One rule for
// every place that takes one.
export const durationUnits: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration's milliseconds, or undefined for a value that is not one. */
export function durationMs(value: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(value);
  return match ? Number(match[1]) * (durationUnits[match[2] as string] as number) : undefined;
}
