// Locations and packages are kept ascending by id, so read models and answers list them stably.

/** A new array with `item` in place of the one with its id, or inserted in id order. */
export function upsertById<T>(items: readonly T[], item: T, idOf: (t: T) => number): T[] {
  const id = idOf(item);
  const index = items.findIndex((t) => idOf(t) >= id);
  if (index === -1) return [...items, item];
  const replaces = idOf(items[index] as T) === id ? 1 : 0;
  return [...items.slice(0, index), item, ...items.slice(index + replaces)];
}

/** A new array without the item with `id`. */
export function removeById<T>(items: readonly T[], id: number, idOf: (t: T) => number): T[] {
  return items.filter((t) => idOf(t) !== id);
}
