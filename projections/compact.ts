/**
 * Drops properties whose value is undefined: optional fields absent in an event stay absent in the
 * state (the MongoDB driver would otherwise store them as null). A loop: it runs for every event.
 */
export function compact<T extends object>(value: T): T {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) kept[key] = field;
  }
  return kept as T;
}
