import { describe, expect, it } from 'vitest';
import type { StatusedOrderState } from '../state.js';
import { statusWord } from './status-v2.js';

type Asked = Pick<StatusedOrderState, 'statusId' | 'statusV2' | 'progressStatusId'>;

describe("a 2.0.0 detail's status (oss-osn-2.0.0.md §4.1)", () => {
  const table: [string, Asked, string][] = [
    ['10', { statusId: 10 }, 'received'],
    ['20', { statusId: 20 }, 'confirmed'],
    ['30', { statusId: 30 }, 'preproduction'],
    ['60', { statusId: 60 }, 'inProduction'],
    ['70', { statusId: 70 }, 'inStorage'],
    ['75', { statusId: 75 }, 'partiallyShipped'],
    ['80', { statusId: 80 }, 'complete'],
    ['99', { statusId: 99 }, 'canceled'],
    ["the ERP's own 2.0.0 word over its statusId's", { statusId: 75, statusV2: 'shipped' }, 'shipped'],
    ['a hold answers the progress made before it', { statusId: 42, progressStatusId: 60 }, 'inProduction'],
    ['an order entry hold after confirmation', { statusId: 11, progressStatusId: 20 }, 'confirmed'],
    ['a hold before any progress', { statusId: 40 }, 'received'],
  ];
  it.each(table)('%s', (_, state, word) => {
    expect(statusWord(state)).toBe(word);
  });
});
