import { describe, expect, it } from 'vitest';
import { groupByPurchaseOrder, groupWholePurchaseOrders } from './purchase-order-groups.js';

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

describe('groupWholePurchaseOrders', () => {
  const at = (clientId: string, purchaseOrderNumber: string, salesOrderNumber: string, time: number) => ({ clientId, purchaseOrderNumber, salesOrderNumber, time });
  const byTime = (a: { time: number }, b: { time: number }) => a.time - b.time;

  it('over the limit, keeps the purchase orders that come first, each with its members read after the cut', async () => {
    // PO1's second change (time 4) comes after PO3's first (time 3), which does not fit.
    const inTime = [at('A', 'PO1', 'S1', 1), at('A', 'PO2', 'S2', 2), at('A', 'PO3', 'S3', 3), at('A', 'PO1', 'S4', 4)];
    const asked: string[][] = [];
    const groups = await groupWholePurchaseOrders(
      inTime,
      (kept) => {
        asked.push(kept.map((g) => g.purchaseOrderNumber));
        // What a store returns for those numbers: some already answered, one of another client.
        return [at('A', 'PO1', 'S4', 4), at('A', 'PO1', 'S1', 1), at('B', 'PO2', 'S9', 5)];
      },
      byTime,
      2,
    );
    expect(asked).toEqual([['PO1', 'PO2']]);
    expect(groups.map((g) => [g.clientId, g.purchaseOrderNumber, g.members.map((m) => m.salesOrderNumber)])).toEqual([
      ['A', 'PO1', ['S1', 'S4']],
      ['A', 'PO2', ['S2']],
    ]);
  });

  it('under the limit, answers what it read and asks for nothing more', async () => {
    const groups = await groupWholePurchaseOrders(
      [at('A', 'PO1', 'S1', 1), at('A', 'PO1', 'S2', 2)],
      () => {
        throw new Error('not asked');
      },
      byTime,
      2,
    );
    expect(groups.map((g) => g.members.length)).toEqual([2]);
  });
});
