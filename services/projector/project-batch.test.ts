import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import type { LoadedStates } from '../../projections/batch.js';
import { projectBatch } from './project-batch.js';

const envelope = (sequence: number, salesOrderNumber = 'SO-1') => ({
  eventId: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
  schemaVersion: 1 as const,
  clientId: 'C1',
  salesOrderNumber,
  sequence,
  occurredAt: '2026-11-01T10:00:00Z',
});

const statusChanged = (sequence: number, statusId: 10 | 20 | 80, salesOrderNumber?: string): ErpEvent => ({
  ...envelope(sequence, salesOrderNumber),
  type: 'SalesOrderStatusChanged',
  data: { purchaseOrderNumber: 'PO-1', statusId },
});

const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
const locationRecorded = (sequence: number): ErpEvent => ({
  ...envelope(sequence),
  type: 'ShipmentLocationRecorded',
  data: { locationId: 1, shipFrom: address, shipTo: address },
});
const packageAtLocation = (sequence: number, locationId: number): ErpEvent => ({
  ...envelope(sequence),
  type: 'PackageShipped',
  data: { locationId, packageId: 1, trackingNumber: '1Z999', shipmentDate: '2026-11-02T10:00:00Z' },
});

const empty = (): LoadedStates => ({ orderStatus: new Map(), shipments: new Map() });
const items = (events: ErpEvent[]) => events.map((event, i) => ({ event, source: i }));

describe('projectBatch', () => {
  it('folds a batch into one change per sales order and read model, with the state before it', () => {
    const { effects, rejected } = projectBatch(empty(), items([statusChanged(1, 10), statusChanged(2, 20), locationRecorded(3), statusChanged(1, 10, 'SO-2')]));
    expect(rejected).toEqual([]);
    expect(effects.orderStatus.map((c) => [c.after.salesOrderNumber, c.after.statusId, c.after.sequence, c.before])).toEqual([
      ['SO-1', 20, 2, undefined],
      ['SO-2', 10, 1, undefined],
    ]);
    expect(effects.shipments.map((c) => [c.after.salesOrderNumber, c.after.locations.length, c.after.purchaseOrderNumber])).toEqual([
      ['SO-1', 1, 'PO-1'],
      ['SO-2', 0, 'PO-1'],
    ]);
  });

  it('writes nothing for events at or below the stored sequence', () => {
    const first = projectBatch(empty(), items([statusChanged(1, 10), statusChanged(2, 20)]));
    const loaded: LoadedStates = {
      orderStatus: new Map(first.effects.orderStatus.map((c) => ['C1:SO-1', c.after])),
      shipments: new Map(first.effects.shipments.map((c) => ['C1:SO-1', c.after])),
    };
    const again = projectBatch(loaded, items([statusChanged(1, 10), statusChanged(2, 20)]));
    expect(again.effects).toEqual({ orderStatus: [], shipments: [] });
  });

  it('rejects an event for an unknown location with its source and reason, and goes on with the rest', () => {
    const { effects, rejected } = projectBatch(empty(), items([packageAtLocation(1, 7), statusChanged(2, 80)]));
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.source).toBe(0);
    expect(rejected[0]!.reason).toMatch(/location 7/);
    expect(effects.orderStatus.map((c) => c.after.statusId)).toEqual([80]);
  });
});
