/**
 * Drops properties whose value is undefined: optional fields absent in an event stay absent in the
 * state (the MongoDB driver would otherwise store them as null).
 */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
