import { describe, expect, it } from 'vitest';
import { issueRecorded, locationRecorded, packageShipped, statusChanged } from '../test/fixtures/sample-events.js';
import { foldEvents } from './fold.js';
import { statusApplies } from './sequence-guard.js';

const at = (sequence: number) => ({ sequence });

describe('statusApplies: one guard per sales order for a status', () => {
  // Each row: the order status's and the shipments' sequences (none: no document yet), the
  // status's sequence, and whether it applies (to both read models; never to one alone).
  it.each([
    ['first status of a new sales order', undefined, undefined, 1, true],
    ['in order, above both', at(3), at(3), 4, true],
    ['in order after order details (order status ahead)', at(6), at(3), 7, true],
    ['in order after shipments (shipments ahead)', at(1), at(5), 6, true],
    ['shipments only, no order status yet', undefined, at(2), 3, true],
    ['the issue: status 4 late after location 2 and packages 3, 5', at(1), at(5), 4, false],
    ['late below order details (v2) ahead of the shipments', at(5), at(1), 4, false],
    ['late between two statuses of the same purchase order (the shipments stayed at the first)', at(3), at(1), 2, false],
    ['duplicate of the last event', at(4), at(4), 4, false],
    ['duplicate of an older one', at(7), at(7), 4, false],
  ] as const)('%s', (_name, status, shipments, sequence, applies) => {
    expect(statusApplies(status, shipments, { sequence })).toBe(applies);
  });
});

describe('the fold with one guard per sales order', () => {
  it('the issue\'s stream leaves both read models at the purchase order of status 1', () => {
    const events = [
      statusChanged(1, { purchaseOrderNumber: 'PO-A', statusId: 20 }),
      locationRecorded(2, 1),
      packageShipped(3, 1, 1),
      packageShipped(5, 1, 2),
      statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 20 }),
    ];
    const result = foldEvents(events);
    expect(result.orderStatus.get('C1:SO-9')).toMatchObject({ purchaseOrderNumber: 'PO-A', sequence: 1 });
    expect(result.shipments.get('C1:SO-9')).toMatchObject({ purchaseOrderNumber: 'PO-A', sequence: 5 });
  });

  it('a batch folded again on the states it left (a retry after its write landed) changes nothing', () => {
    const before = foldEvents([statusChanged(1, { purchaseOrderNumber: 'PO-A', statusId: 20 }), locationRecorded(2, 1)]);
    const batch = [statusChanged(3, { purchaseOrderNumber: 'PO-B', statusId: 20 }), issueRecorded(4), packageShipped(5, 1, 1)];
    const whole = foldEvents(batch, before);
    const again = foldEvents(batch, whole);
    expect(again.orderStatus.get('C1:SO-9')).toBe(whole.orderStatus.get('C1:SO-9'));
    expect(again.shipments.get('C1:SO-9')).toBe(whole.shipments.get('C1:SO-9'));
    expect(whole.shipments.get('C1:SO-9')?.purchaseOrderNumber).toBe('PO-B');
  });
});
