import { describe, expect, it } from 'vitest';
import type { ShipmentsDocument } from '../../services/adapters/mongodb/documents.js';
import type { StoredLocation } from './timed-documents.js';
import { newsKey, newsOf, purchaseOrderCompleteChanged, sendable, type NewsPlace, type ShipmentNewsSince } from './shipment-news.js';

const at = (hhmm: string) => new Date(`2026-11-02T${hhmm}:00Z`);
const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
const since: ShipmentNewsSince = { shippedSince: at('10:00'), visibleSince: at('09:59') };

const pkg = (packageId: number, shipped: string, visible?: string) => ({
  packageId,
  trackingNumber: `1Z${packageId}`,
  shipmentDate: at(shipped),
  ...(visible ? { visibleAt: at(visible) } : {}),
});
const location = (locationId: number, packages: ReturnType<typeof pkg>[], completeChangedAt?: string): StoredLocation => ({
  locationId,
  complete: completeChangedAt !== undefined,
  shipFrom: address,
  shipTo: address,
  packages,
  ...(completeChangedAt ? { completeChangedAt: at(completeChangedAt) } : {}),
});
const salesOrder = (...locations: StoredLocation[]): ShipmentsDocument => ({
  _id: 'C1:SO-1',
  clientId: 'C1',
  salesOrderNumber: 'SO-1',
  sequence: 9,
  purchaseOrderNumber: 'PO-1',
  completedAsWhole: false,
  complete: false,
  locations,
  completeChangedAt: at('08:00'),
  purchaseOrderSetAt: at('07:00'),
  lastNewsAt: at('10:07'),
});
const outline = (so: ReturnType<typeof newsOf>) => so?.locations.map((l) => [l.locationId, l.packages.map((p) => p.packageId)]);

describe('newsOf: the part of a sales order queryType 3 answers', () => {
  it('packages shipped at or after the timestamp, and those made visible since, whatever their shipmentDate', () => {
    const so = salesOrder(location(1, [pkg(1, '10:00', '10:01'), pkg(2, '09:50', '10:07'), pkg(3, '09:00', '09:05'), pkg(4, '09:30', '09:59')]));
    // 1 shipped at the timestamp; 2 shipped before, posted late; 3 seen before; 4 made visible within the overlap.
    expect(outline(newsOf(so, since))).toEqual([[1, [1, 2, 4]]]);
  });

  it('a location whose complete flag changed since, with no new package; other locations are left out', () => {
    const so = salesOrder(location(1, [pkg(1, '08:00', '08:01')], '10:30'), location(2, [pkg(2, '08:00', '08:01')], '09:00'), location(3, [pkg(3, '11:00', '11:01')]));
    expect(outline(newsOf(so, since))).toEqual([
      [1, []],
      [3, [3]],
    ]);
    expect(newsOf(salesOrder(location(1, [pkg(1, '08:00', '08:01')], '09:00')), since)).toBeUndefined();
  });

  it('every location when its purchase order’s complete flag changed, each with its new packages only', () => {
    const so = salesOrder(location(1, [pkg(1, '08:00', '08:01')]), location(2, [pkg(2, '08:00', '08:01'), pkg(3, '10:05', '10:06')]));
    expect(outline(newsOf(so, since, true))).toEqual([
      [1, []],
      [2, [3]],
    ]);
    expect(newsOf({ ...so, locations: [] }, since, true)).toBeUndefined();
  });

  it('answers the state without the store’s times', () => {
    const so = newsOf(salesOrder(location(1, [pkg(1, '10:00', '10:01')], '10:30')), since)!;
    expect(so).toEqual({
      clientId: 'C1',
      salesOrderNumber: 'SO-1',
      sequence: 9,
      purchaseOrderNumber: 'PO-1',
      completedAsWhole: false,
      complete: false,
      locations: [{ locationId: 1, complete: true, shipFrom: address, shipTo: address, packages: [{ packageId: 1, trackingNumber: '1Z1', shipmentDate: at('10:00') }] }],
    });
  });
});

describe('newsKey: what an answered sales order is ordered by', () => {
  it('its earliest shipmentDate, late packages included; the timestamp when a location holds no package', () => {
    const late = newsOf(salesOrder(location(1, [pkg(1, '10:30', '10:31'), pkg(2, '09:50', '10:07')])), since)!;
    expect(newsKey(late, since)).toBe(at('09:50').getTime());
    const flag = newsOf(salesOrder(location(1, [pkg(1, '10:30', '10:31')]), location(2, [], '10:40')), since)!;
    expect(newsKey(flag, since)).toBe(at('10:00').getTime());
  });
});

describe('purchaseOrderCompleteChanged', () => {
  const member = (complete: boolean, completeChangedAt?: string, purchaseOrderSetAt = '07:00') => ({
    complete,
    purchaseOrderSetAt: at(purchaseOrderSetAt),
    ...(completeChangedAt ? { completeChangedAt: at(completeChangedAt) } : {}),
  });

  it('a sales order completing the last of its purchase order changes the purchase order’s flag; one completing beside an incomplete one does not', () => {
    expect(purchaseOrderCompleteChanged([member(true, '08:00'), member(true, '10:30')], since.visibleSince)).toBe(true);
    expect(purchaseOrderCompleteChanged([member(false), member(true, '10:30')], since.visibleSince)).toBe(false);
    expect(purchaseOrderCompleteChanged([member(true, '08:00'), member(true, '09:00')], since.visibleSince)).toBe(false);
  });

  it('a sales order becoming incomplete, or coming under a complete purchase order incomplete, changes it', () => {
    expect(purchaseOrderCompleteChanged([member(true, '08:00'), member(false, '10:30')], since.visibleSince)).toBe(true);
    expect(purchaseOrderCompleteChanged([member(true, '08:00'), member(false, undefined, '10:30')], since.visibleSince)).toBe(true);
    expect(purchaseOrderCompleteChanged([member(false), member(false, undefined, '10:30')], since.visibleSince)).toBe(false);
  });

  it('a purchase order that came to be since: changed when it is complete already', () => {
    expect(purchaseOrderCompleteChanged([member(false, undefined, '10:30')], since.visibleSince)).toBe(false);
    expect(purchaseOrderCompleteChanged([member(true, '10:40', '10:30')], since.visibleSince)).toBe(true);
    expect(purchaseOrderCompleteChanged([], since.visibleSince)).toBe(false);
  });

  it('a sales order written before these times were recorded counts as there all along', () => {
    expect(purchaseOrderCompleteChanged([{ complete: true }, member(true, '10:30')], since.visibleSince)).toBe(true);
    expect(purchaseOrderCompleteChanged([{ complete: true }], since.visibleSince)).toBe(false);
  });
});

describe('sendable: what an answer sent as it is read can send once a batch is read', () => {
  const po = (purchaseOrderNumber: string, key: number, clientId = 'C1'): NewsPlace => ({ clientId, purchaseOrderNumber, key });
  const names = (places: NewsPlace[]) => places.map((p) => p.purchaseOrderNumber);
  const end = po('Z', 100);
  it.each([
    { case: 'keys as planned: those that sort before the next to read, in order', waiting: [po('B', 20), po('A', 10), po('D', 40)], next: po('C', 30), send: ['A', 'B'], wait: ['D'] },
    { case: 'the last that could be sent waits while none later does: the answer ends with one within the planned end', waiting: [po('B', 20), po('A', 10)], next: po('C', 30), send: ['A'], wait: ['B'] },
    { case: 'a key read later than planned waits past the next to read', waiting: [po('A', 10), po('B', 45)], next: po('C', 30), send: ['A'], wait: ['B'] },
    { case: 'a tie on the key: by client, then number, as the next to read', waiting: [po('D', 30), po('B', 30, 'C0')], next: po('C', 30), send: ['B'], wait: ['D'] },
    { case: 'a key read past the planned end (a sales order left, with its earliest news): sent at once, ahead of the others', waiting: [po('A', 10), po('P', 120), po('D', 40)], next: po('C', 30), send: ['P', 'A'], wait: ['D'] },
    { case: 'a key read at the planned end is within it', waiting: [po('A', 10), po('P', 100), po('D', 40)], next: po('C', 30), send: ['A'], wait: ['D', 'P'] },
    { case: 'none left to read: those past the end, then all in order', waiting: [po('B', 45), po('P', 120), po('A', 10)], next: undefined, send: ['P', 'A', 'B'], wait: [] },
    { case: 'nothing read', waiting: [], next: po('C', 30), send: [], wait: [] },
  ])('$case', ({ waiting, next, send, wait }) => {
    const result = sendable(waiting, next, end);
    expect(names(result.send)).toEqual(send);
    expect(names(result.wait)).toEqual(wait);
  });
});
