import { describe, expect, it } from 'vitest';
import { purchaseOrderComplete } from '../../../projections/completion.js';
import { foldEvents } from '../../../projections/fold.js';
import type { ShipmentsState } from '../../../projections/state.js';
import { generateDemoEvents } from './demo-events.js';
import type { ErpEvent, ErpEventOf } from '../../../contracts/erp-event-schema.js';
import { parseErpEvent } from '../../../contracts/parse-erp-event.js';
import { eventKey } from '../../../contracts/transport.js';

const now = new Date('2025-06-01T12:00:00Z');
const events = generateDemoEvents({ clients: 3, orders: 20, seed: 7, now });
const folded = foldEvents(events);

const ofType = <T extends ErpEvent['type']>(type: T) => events.filter((e): e is ErpEventOf<T> => e.type === type);
const keyOf = (e: ErpEvent) => eventKey(e.clientId, e.salesOrderNumber);

describe('generateDemoEvents', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(generateDemoEvents({ clients: 3, orders: 20, seed: 7, now })).toEqual(events);
    expect(generateDemoEvents({ clients: 3, orders: 20, seed: 8, now })).not.toEqual(events);
  });

  it('moves only the times when `now` moves', () => {
    const dayLater = generateDemoEvents({ clients: 3, orders: 20, seed: 7, now: new Date(now.getTime() + 86_400_000) });
    expect(dayLater.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
    expect(dayLater.map((e) => Date.parse(e.occurredAt) - Date.parse(events[0]?.occurredAt ?? ''))).toEqual(
      events.map((e) => Date.parse(e.occurredAt) - Date.parse(events[0]?.occurredAt ?? '') + 86_400_000),
    );
  });

  it('makes every event valid by the contract', () => {
    const failures = events.map((e) => parseErpEvent(JSON.stringify(e))).filter((r) => !r.ok);
    expect(failures).toEqual([]);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
  });

  it('folds without a rejection into the number of sales orders asked for', () => {
    expect(folded.rejected).toEqual([]);
    expect(folded.orderStatus.size).toBe(60);
    expect([...folded.orderStatus.keys()].every((k) => /^CLIENT-00[123]:SO-\d+$/.test(k))).toBe(true);
  });

  it('publishes each sales order in sequence 1, 2, 3, …', () => {
    const last = new Map<string, number>();
    for (const event of events) {
      expect(event.sequence).toBe((last.get(keyOf(event)) ?? 0) + 1);
      last.set(keyOf(event), event.sequence);
    }
  });

  it('dates everything in the recent past, shipment dates in UTC', () => {
    const times = events.map((e) => Date.parse(e.occurredAt));
    expect(Math.max(...times)).toBeLessThanOrEqual(now.getTime());
    expect(Math.min(...times)).toBeGreaterThan(now.getTime() - 90 * 86_400_000);
    expect(events.some((e) => e.occurredAt.endsWith('-05:00'))).toBe(true);
    for (const p of ofType('PackageShipped')) {
      expect(p.data.shipmentDate).toMatch(/Z$/);
      expect(Date.parse(p.data.shipmentDate)).toBe(Date.parse(p.occurredAt));
    }
  });

  it('defaults `now` to the start of the current UTC day', () => {
    const today = new Date().setUTCHours(0, 0, 0, 0);
    const latest = Math.max(...generateDemoEvents({ clients: 1, orders: 8, seed: 1 }).map((e) => Date.parse(e.occurredAt)));
    expect(latest).toBeLessThanOrEqual(today);
    expect(latest).toBeGreaterThan(today - 30 * 86_400_000);
  });

  it('works for a single order', () => {
    const one = generateDemoEvents({ clients: 1, orders: 1, seed: 3, now });
    expect(one.length).toBeGreaterThan(0);
    expect(foldEvents(one).rejected).toEqual([]);
  });
});

describe('generateDemoEvents: variety', () => {
  const statuses = new Set(ofType('SalesOrderStatusChanged').map((e) => e.data.statusId));
  const shipments = [...folded.shipments.values()];

  it('has status progressions, holds and cancellations', () => {
    for (const id of [10, 20, 30, 60, 75, 80, 99] as const) expect(statuses).toContain(id);
    expect([40, 41, 42, 43, 44].filter((id) => statuses.has(id as never)).length).toBeGreaterThanOrEqual(2);
    const status = [...folded.orderStatus.values()];
    expect(status.some((s) => s.open)).toBe(true);
    expect(status.some((s) => !s.open)).toBe(true);
    expect(status.some((s) => s.expectedShipDate && s.expectedDeliveryDate)).toBe(true);
  });

  it('has several sales orders per purchase order, and sales orders without one', () => {
    const byPurchaseOrder = new Map<string, ShipmentsState[]>();
    for (const so of shipments) {
      if (so.purchaseOrderNumber === undefined) continue;
      const key = `${so.clientId}:${so.purchaseOrderNumber}`;
      byPurchaseOrder.set(key, [...(byPurchaseOrder.get(key) ?? []), so]);
    }
    const groups = [...byPurchaseOrder.values()];
    expect(groups.some((g) => g.length > 1)).toBe(true);
    expect(shipments.some((so) => so.purchaseOrderNumber === undefined)).toBe(true);
    expect(groups.some(purchaseOrderComplete)).toBe(true);
    expect(groups.some((g) => !purchaseOrderComplete(g))).toBe(true);
  });

  it('has multi-location shipments, packages with items and dimensions, and voids', () => {
    expect(shipments.some((so) => so.locations.length > 1)).toBe(true);
    const packages = ofType('PackageShipped').map((e) => e.data);
    expect(packages.some((p) => (p.items?.length ?? 0) > 0 && p.length !== undefined && p.weight !== undefined)).toBe(true);
    expect(packages.some((p) => p.items === undefined)).toBe(true);
    expect(ofType('PackageVoided').length).toBeGreaterThan(0);
    expect(ofType('ShipmentLocationRecorded').every((e) => /^[A-Z]{2}$/.test(e.data.shipTo.region) && /^\d{5}(-\d{4})?$/.test(e.data.shipTo.postalCode))).toBe(true);
  });

  it('completes some locations one by one and some sales orders as a whole', () => {
    const completions = ofType('ShipmentCompleted');
    expect(completions.some((e) => e.data.locationId !== undefined)).toBe(true);
    expect(completions.some((e) => e.data.locationId === undefined)).toBe(true);
    expect(shipments.some((so) => so.complete && !so.completedAsWhole)).toBe(true);
    expect(shipments.some((so) => so.completedAsWhole)).toBe(true);
    expect(shipments.some((so) => so.locations.length > 0 && !so.complete)).toBe(true);
  });

  it('has every kind for other seeds too', () => {
    for (const seed of [1, 2, 3, 42, 2025]) {
      const stream = generateDemoEvents({ clients: 2, orders: 16, seed, now });
      expect(foldEvents(stream).rejected).toEqual([]);
      const types = new Set(stream.map((e) => e.type));
      expect(types.size).toBe(5);
    }
  });
});
