import { describe, expect, it } from 'vitest';
import { removeById, upsertById } from './sorted.js';

const id = (n: { id: number }) => n.id;
const items = Object.freeze([{ id: 1 }, { id: 3 }, { id: 5 }]);

describe('sorted by id', () => {
  it('inserts in order at the start, middle and end', () => {
    expect(upsertById(items, { id: 0 }, id).map(id)).toEqual([0, 1, 3, 5]);
    expect(upsertById(items, { id: 4 }, id).map(id)).toEqual([1, 3, 4, 5]);
    expect(upsertById(items, { id: 9 }, id).map(id)).toEqual([1, 3, 5, 9]);
    expect(upsertById([], { id: 2 }, id).map(id)).toEqual([2]);
  });

  it('replaces the item with the same id', () => {
    const replacement = { id: 3 };
    const result = upsertById(items, replacement, id);
    expect(result.map(id)).toEqual([1, 3, 5]);
    expect(result[1]).toBe(replacement);
  });

  it('removes by id', () => {
    expect(removeById(items, 3, id).map(id)).toEqual([1, 5]);
    expect(removeById(items, 4, id).map(id)).toEqual([1, 3, 5]);
  });
});
