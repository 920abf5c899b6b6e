import { describe, expect, it } from 'vitest';
import { groupByPurchaseOrder } from './purchase-order-groups.js';

const so = (clientId: string, purchaseOrderNumber: string | undefined, n: string) => ({ clientId, purchaseOrderNumber, n });

describe('groupByPurchaseOrder', () => {
  it('groups per client and purchase order, in order of first appearance, skipping orders without a PO', async () => {
    const groups = await groupByPurchaseOrder([so('A', 'PO1', '1'), so('B', 'PO1', '2'), so('A', undefined, '3'), so('A', 'PO1', '4')], {
      contiguous: false,
    });
    expect(groups.map((g) => [g.clientId, g.purchaseOrderNumber, g.members.map((m) => m.n)])).toEqual([
      ['A', 'PO1', ['1', '4']],
      ['B', 'PO1', ['2']],
    ]);
  });

  it('keeps at most the limit of purchase orders and never cuts one in half', async () => {
    const items = [so('A', 'PO1', '1'), so('A', 'PO2', '2'), so('A', 'PO3', '3'), so('A', 'PO1', '4'), so('A', 'PO2', '5')];
    const groups = await groupByPurchaseOrder(items, { limit: 2, contiguous: false });
    expect(groups.map((g) => g.members.map((m) => m.n))).toEqual([['1', '4'], ['2', '5']]);
  });

  it('stops reading at the first purchase order past the limit when the input is sorted by purchase order', async () => {
    let read = 0;
    async function* sorted() {
      for (const item of [so('A', 'PO1', '1'), so('A', 'PO1', '2'), so('A', 'PO2', '3'), so('A', 'PO3', '4'), so('A', 'PO4', '5')]) {
        read++;
        yield item;
      }
    }
    const groups = await groupByPurchaseOrder(sorted(), { limit: 2, contiguous: true });
    expect(groups.map((g) => g.purchaseOrderNumber)).toEqual(['PO1', 'PO2']);
    expect(read).toBe(4);
  });
});
