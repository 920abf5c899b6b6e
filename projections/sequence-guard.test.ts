import { describe, expect, it } from 'vitest';
import { issueRecorded, locationRecorded, packageShipped, statusChanged } from '../test/fixtures/sample-events.js';
import { foldEvents } from './fold.js';
import { statusGuard } from './sequence-guard.js';

const os = (sequence: number, statusSequence: number) => ({ sequence, statusSequence, statusId: 10 as const });
const sh = (sequence: number) => ({ sequence });

describe('statusGuard: one guard per sales order for a status', () => {
  // Each row: the order status (sequence, last status taken), the shipments' sequence, the
  // status's sequence, and whether it applies to (order status, shipments).
  it.each([
    ['first status of a new sales order', undefined, undefined, 1, [true, true]],
    ['in order, above both', os(3, 1), sh(3), 4, [true, true]],
    ['in order after order details (order status ahead)', os(6, 1), sh(3), 7, [true, true]],
    ['in order after shipments (shipments ahead)', os(1, 1), sh(5), 6, [true, true]],
    ['shipments only, no order status yet', undefined, sh(2), 3, [true, true]],
    ['the issue: status 4 late after location 2 and packages 3, 5', os(1, 1), sh(5), 4, [false, false]],
    ['late below order details (v2) ahead of the shipments', os(5, 1), sh(1), 4, [false, false]],
    ['late between two statuses of the same purchase order', os(3, 3), sh(1), 2, [false, false]],
    ['duplicate of the last status', os(4, 4), sh(4), 4, [false, false]],
    ['duplicate of an older one', os(7, 4), sh(7), 4, [false, false]],
    ['half-written retry: the order status took it, the shipments missed it', os(7, 7), sh(5), 7, [false, true]],
    ['half-written retry: the order status took it and moved past (issue 8)', os(8, 7), sh(5), 7, [false, true]],
  ] as const)('%s', (_name, status, shipments, sequence, [toStatus, toShipments]) => {
    expect(statusGuard(status, shipments, { sequence })).toEqual({ orderStatus: toStatus, shipments: toShipments });
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

  it('a batch whose shipments write failed after the order status\'s is completed by folding it again', () => {
    const before = foldEvents([statusChanged(1, { purchaseOrderNumber: 'PO-A', statusId: 20 }), locationRecorded(2, 1)]);
    const batch = [statusChanged(3, { purchaseOrderNumber: 'PO-B', statusId: 20 }), issueRecorded(4), packageShipped(5, 1, 1)];
    const whole = foldEvents(batch, before);
    // The store holds the order status after the batch and the shipments before it.
    const retried = foldEvents(batch, { orderStatus: whole.orderStatus, shipments: before.shipments });
    expect(retried.shipments).toEqual(whole.shipments);
    expect(retried.orderStatus).toEqual(whole.orderStatus);
    expect(retried.shipments.get('C1:SO-9')?.purchaseOrderNumber).toBe('PO-B');
  });
});
