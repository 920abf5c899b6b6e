import { describe, expect, it } from 'vitest';
import {
  asV2,
  contactsRecorded,
  issueRecorded,
  linesRecorded,
  locationRecorded,
  packageShipped,
  packageVoided,
  sampleEvent,
  shipmentCompleted,
  statusChanged,
} from '../test/fixtures/sample-events.js';
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

  describe('contract v2', () => {
    const v2Stream = [
      contactsRecorded(1, [{ contactType: 'Order', email: 'o@acme.example' }]),
      asV2(statusChanged(2, { purchaseOrderNumber: 'PO-1', statusId: 42, statusV2: 'preproduction' })),
      issueRecorded(3),
      asV2(locationRecorded(4, 1, { customerPickup: true })),
      linesRecorded(5, [{ salesOrderLineNumber: '1', productId: 'PC61', quantityOrdered: { value: 1, uom: 'EA' } }]),
      asV2(packageShipped(6, 1, 1, { carrierService: 'Ground', items: [{ quantity: 1, uom: 'EA' }] })),
      statusChanged(7, { purchaseOrderNumber: 'PO-1', statusId: 60 }),
    ];

    it('folds the new types into the order-status model only', () => {
      const result = foldEvents(v2Stream);
      expect(result.rejected).toEqual([]);
      expect(result.orderStatus.get('C1:SO-9')).toMatchObject({
        sequence: 7,
        statusSequence: 7,
        statusId: 60,
        contacts: [{ contactType: 'Order', email: 'o@acme.example' }],
        lines: [{ salesOrderLineNumber: '1' }],
        issues: [{ source: 'hold', issueStatus: 'Closed' }, { issueId: 'I-1', source: 'erp' }],
      });
      expect(result.shipments.get('C1:SO-9')).toMatchObject({ sequence: 6, locations: [{ customerPickup: true, packages: [{ carrierService: 'Ground' }] }] });
    });

    it('ignores duplicates and replays of every type', () => {
      expect(foldEvents([...v2Stream, ...v2Stream])).toEqual(foldEvents(v2Stream));
      const shuffledReplay = [...v2Stream].reverse();
      expect(foldEvents([...v2Stream, ...shuffledReplay])).toEqual(foldEvents(v2Stream));
    });

    it.each([
      ['an ossn- issueId', issueRecorded(8, { issueId: 'ossn-hold-0' })],
      ['a repeated salesOrderLineNumber', linesRecorded(8, [
        { salesOrderLineNumber: '1', productId: 'A', quantityOrdered: { value: 1, uom: 'EA' } },
        { salesOrderLineNumber: '1', productId: 'B', quantityOrdered: { value: 1, uom: 'EA' } },
      ])],
    ])('rejects %s, applying it to neither model', (_, bad) => {
      const before = foldEvents(v2Stream);
      const result = foldEvents([...v2Stream, bad, packageVoided(9, 1, 1)]);
      expect(result.rejected.map((r) => r.event)).toEqual([bad]);
      expect(result.orderStatus.get('C1:SO-9')).toEqual(before.orderStatus.get('C1:SO-9'));
      expect(result.shipments.get('C1:SO-9')?.sequence).toBe(9);
    });

    it('keeps a stream of v1 events to the v1 fields, and the few 2.0.0 derives from them', () => {
      const result = foldEvents([
        statusChanged(1, { purchaseOrderNumber: 'PO-1', statusId: 20, expectedShipDate: '2025-05-10T00:00:00Z', responseRequired: true }),
        locationRecorded(2, 1, { shipmentDestinationType: 'Commercial' }),
        packageShipped(3, 1, 1, { carrier: 'UPS', items: [{ supplierProductId: 'PC61', quantity: 2 }] }),
        statusChanged(4, { purchaseOrderNumber: 'PO-1', statusId: 75, expectedShipDate: '2025-05-10T00:00:00Z' }),
      ]);
      expect(Object.keys(result.orderStatus.get('C1:SO-9') ?? {}).sort()).toEqual(
        [
          ...['clientId', 'salesOrderNumber', 'sequence', 'purchaseOrderNumber', 'statusId', 'open', 'expectedShipDate', 'validTimestamp'],
          ...['statusSequence', 'lastOccurredAt', 'progressStatusId', 'expectedShipDay'],
        ].sort(),
      );
      const shipments = result.shipments.get('C1:SO-9');
      expect(Object.keys(shipments?.locations[0] ?? {}).sort()).toEqual(['complete', 'locationId', 'packages', 'shipFrom', 'shipTo', 'shipmentDestinationType']);
      expect(shipments?.locations[0]?.packages).toStrictEqual([
        { packageId: 1, trackingNumber: '1Z999AA10123456781', shipmentDate: new Date('2025-05-02T15:30:00Z'), carrier: 'UPS', items: [{ supplierProductId: 'PC61', quantity: 2 }] },
      ]);
    });
  });
});
