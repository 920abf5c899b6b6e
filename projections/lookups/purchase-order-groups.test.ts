import { describe, expect, it } from 'vitest';
import { groupByPurchaseOrder } from './purchase-order-groups.js';

const so = (clientId: string, purchaseOrderNumber: string | undefined, n: string) => ({ clientId, purchaseOrderNumber, n });

describe('groupByPurchaseOrder', () => {
  it('groups per client and purchase order, in order of first appearance, skipping orders without a PO', async () => {
    const groups = await groupByPurchaseOrder([so('A', 'PO1', '1'), so('B', 'PO1', '2'), so('A', undefined, '3'), so('A', 'PO1', '4')]);
    expect(groups.map((g) => [g.clientId, g.purchaseOrderNumber, g.members.map((m) => m.n)])).toEqual([
      ['A', 'PO1', ['1', '4']],
      ['B', 'PO1', ['2']],
    ]);
  });

  it('keeps at most the limit of purchase orders, and nothing read after the first one left out', async () => {
    // In time order (queryType 3): PO3 changed at 3 does not fit; PO1's change at 4 waits for the next poll with it.
    const items = [so('A', 'PO1', '1'), so('A', 'PO2', '2'), so('A', 'PO3', '3'), so('A', 'PO1', '4'), so('A', 'PO2', '5')];
    const groups = await groupByPurchaseOrder(items, 2);
    expect(groups.map((g) => [g.purchaseOrderNumber, g.members.map((m) => m.n)])).toEqual([
      ['PO1', ['1']],
      ['PO2', ['2']],
    ]);
  });

  it('keeps the first purchase orders whole when sorted by purchase order, and stops reading past the limit', async () => {
    let read = 0;
    async function* sorted() {
      for (const item of [so('A', 'PO1', '1'), so('A', 'PO1', '2'), so('A', 'PO2', '3'), so('A', 'PO3', '4'), so('A', 'PO4', '5')]) {
        read++;
        yield item;
      }
    }
    const groups = await groupByPurchaseOrder(sorted(), 2);
    expect(groups.map((g) => g.purchaseOrderNumber)).toEqual(['PO1', 'PO2']);
    expect(read).toBe(4);
  });
});
