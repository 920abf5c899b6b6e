import { describe, expect, it } from 'vitest';
import { locationRecorded, packageShipped, sampleEvent, shipmentCompleted, statusChanged } from '../test/fixtures/sample-events.js';
import { foldEvents } from './fold.js';

describe('foldEvents', () => {
  it('folds each sales order into both read models, keyed by client and sales order', () => {
    const other = sampleEvent('SalesOrderStatusChanged', 1, { purchaseOrderNumber: 'PO-1', statusId: 10 }, { salesOrderNumber: 'SO-10' });
    const result = foldEvents([statusChanged(1), other, locationRecorded(2, 1), packageShipped(3, 1, 1), shipmentCompleted(4), statusChanged(5, { purchaseOrderNumber: 'PO-1', statusId: 80 })]);
    expect([...result.orderStatus.keys()]).toEqual(['C1:SO-9', 'C1:SO-10']);
    expect(result.orderStatus.get('C1:SO-9')).toMatchObject({ statusId: 80, open: false, sequence: 5 });
    expect(result.shipments.get('C1:SO-9')).toMatchObject({ complete: true, sequence: 4, purchaseOrderNumber: 'PO-1' });
    expect(result.shipments.get('C1:SO-10')?.locations).toEqual([]);
    expect(result.rejected).toEqual([]);
  });

  it('lists rejected events with their reason and applies them to neither read model', () => {
    const bad = packageShipped(2, 7, 1);
    const result = foldEvents([statusChanged(1), bad, locationRecorded(3, 1)]);
    expect(result.rejected).toEqual([{ event: bad, reason: 'unknown location 7 for sales order C1:SO-9' }]);
    expect(result.shipments.get('C1:SO-9')?.sequence).toBe(3);
  });

  it('ignores duplicates and replays', () => {
    const events = [statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1)];
    expect(foldEvents([...events, ...events])).toEqual(foldEvents(events));
  });

  it('is empty for no events', () => {
    expect(foldEvents([])).toEqual({ orderStatus: new Map(), shipments: new Map(), rejected: [] });
  });
});
