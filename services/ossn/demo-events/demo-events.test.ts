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
      expect(types.size).toBe(8);
    }
  });
});

// oss-osn-2.0.0.md §4, §5: enough contract v2 content that the examples show a full 2.0.0 answer.
describe('generateDemoEvents: contract v2', () => {
  const statuses = [...folded.orderStatus.values()];
  const issues = statuses.flatMap((s) => s.issues ?? []);
  const locations = [...folded.shipments.values()].flatMap((so) => so.locations);
  const packages = locations.flatMap((l) => l.packages);

  it('speaks contract v2, with every new event type', () => {
    expect(events.every((e) => e.schemaVersion === 2)).toBe(true);
    for (const type of ['IssueRecorded', 'SalesOrderLinesRecorded', 'OrderContactsRecorded'] as const) expect(ofType(type).length).toBeGreaterThan(0);
  });

  it('has orders still on hold, with an open derived issue and the progress status kept, and holds left behind', () => {
    const onHold = statuses.filter((s) => s.statusId !== undefined && [11, 40, 41, 42, 43, 44].includes(s.statusId));
    expect(onHold.length).toBeGreaterThan(0);
    for (const s of onHold) {
      expect(s.progressStatusId).toBe(20);
      expect(s.issues?.filter((i) => i.source === 'hold' && i.issueStatus === 'Open')).toHaveLength(1);
      expect(s.additionalExplanation).toMatch(/Reminder sent/);
    }
    expect(issues.some((i) => i.source === 'hold' && i.issueStatus === 'Closed')).toBe(true);
  });

  it('has ERP issues open, pending and closed', () => {
    const erp = issues.filter((i) => i.source === 'erp');
    expect(new Set(erp.map((i) => i.issueStatus))).toEqual(new Set(['Open', 'Pending', 'Closed']));
    expect(erp.every((i) => !i.issueId.startsWith('ossn-'))).toBe(true);
  });

  it('has product lines ordered and shipped, and contacts', () => {
    expect(statuses.some((s) => s.lines?.some((l) => l.quantityShipped && l.status === 'complete'))).toBe(true);
    expect(statuses.some((s) => s.lines?.some((l) => l.quantityOrdered.uom === 'DZ'))).toBe(true);
    expect(statuses.some((s) => (s.contacts?.length ?? 0) > 1 && s.contacts?.[0]?.contactType === 'Order')).toBe(true);
  });

  it("has statusV2 shipped, explanations and proofs", () => {
    expect(statuses.some((s) => s.statusV2 === 'shipped' && s.statusId === 80)).toBe(true);
    expect(statuses.some((s) => s.qualityProofURL !== undefined)).toBe(true);
    expect(statuses.some((s) => s.expectedShipDay !== undefined)).toBe(true);
  });

  it('has shipments with customer pickups, recipients, carrier services, proofs and units', () => {
    expect(locations.some((l) => l.customerPickup === true)).toBe(true);
    expect(locations.some((l) => l.shipTo.attentionTo && l.shipTo.companyName && l.shipTo.email && l.shipTo.phone)).toBe(true);
    expect(packages.some((p) => p.carrierService !== undefined)).toBe(true);
    expect(packages.some((p) => p.preProductionProof !== undefined)).toBe(true);
    expect(packages.some((p) => p.items?.some((i) => i.uom === 'DZ'))).toBe(true);
    expect(packages.some((p) => p.items?.some((i) => i.uom === undefined))).toBe(true);
  });

  it("packs only the order's own lines", () => {
    for (const so of folded.shipments.values()) {
      const ordered = new Set(folded.orderStatus.get(eventKey(so.clientId, so.salesOrderNumber))?.lines?.map((l) => l.partId));
      for (const item of so.locations.flatMap((l) => l.packages.flatMap((p) => p.items ?? []))) expect(ordered).toContain(item.supplierPartId);
    }
  });
});
