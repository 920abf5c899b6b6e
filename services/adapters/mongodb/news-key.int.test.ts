import type { Collection, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleShipFrom, sampleShipTo } from '../../../test/fixtures/sample-events.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { newsKey, newsKeyedInV2, newsOf, type ShipmentNewsSince } from '../../../projections/polling/shipment-news.js';
import type { StoredLocation, StoredPackage } from '../../../projections/polling/timed-documents.js';
import { changeTimeOverlapMs } from './changed-since.js';
import { connectMongo } from './connect.js';
import { documentId, readModelCollections, type ShipmentsDocument } from './documents.js';
import { newsOfV2 } from './lookups-v2.js';
import { serverNewsKey } from './shipment-reads.js';

// Shipment queryType 3 keys each sales order twice: the plan on the server (serverNewsKey), the
// answer in JS (newsOf, newsKeyedInV2, newsKey). A purchase order planned at one key and answered
// at another is sent out of order (docs/partners.md: a partner resumes from the last one's time),
// so this table holds the two together. Documents are inserted as stored: this is about the
// expression, not the writer.

const env = testEnvironment();
let mongo: MongoClient;
let shipments: Collection<ShipmentsDocument>;

const T = new Date('2026-01-01T12:00:00Z').getTime();
const at = (offsetMs: number) => new Date(T + offsetMs);
const hour = 3_600_000;
const day = 24 * hour;
/** Inside the overlap: new to a since less the overlap only. */
const inOverlap = -2_000;

const pkg = (packageId: number, shipped: number, visible?: number): StoredPackage => ({
  packageId,
  trackingNumber: `1Z${packageId}`,
  shipmentDate: at(shipped),
  ...(visible !== undefined ? { visibleAt: at(visible) } : {}),
});
const location = (locationId: number, packages: StoredPackage[], flagChanged?: number): StoredLocation => ({
  locationId,
  complete: flagChanged !== undefined,
  shipFrom: sampleShipFrom,
  shipTo: sampleShipTo,
  packages,
  ...(flagChanged !== undefined ? { completeChangedAt: at(flagChanged) } : {}),
});
/** An old package: shipped and made visible a day before the timestamp. */
const old = (packageId: number) => pkg(packageId, -day, -day);
/** An old package whose shipReferences changed at this offset: news to 2.1.0 alone. */
const referencesChanged = (packageId: number, changed: number): StoredPackage => ({ ...old(packageId), shipReferences: ['PO 4711'], referencesChangedAt: at(changed) });

interface Row {
  name: string;
  locations: StoredLocation[];
  /** The sales order's own complete flag changed at this offset. */
  flagChanged?: number;
  /** It came under its purchase order at this offset. */
  purchaseOrderSet?: number;
}

const rows: Row[] = [
  { name: 'a package shipped after the timestamp', locations: [location(1, [old(1), pkg(2, hour, hour)])] },
  { name: 'a package shipped before the timestamp, made visible after', locations: [location(1, [old(1), pkg(2, -day, 10 * 60_000)])] },
  { name: 'a package shipped exactly at the timestamp, visible long before', locations: [location(1, [pkg(1, 0, -day)])] },
  { name: 'a package made visible inside the overlap', locations: [location(1, [pkg(1, -day, inOverlap)])] },
  { name: 'a package without a visible time (written before they were recorded), shipped after', locations: [location(1, [pkg(1, hour)])] },
  { name: 'old packages without visible times only', locations: [location(1, [pkg(1, -day), pkg(2, -hour)])] },
  { name: 'a location whose flag changed after, with old packages', locations: [location(1, [old(1)], 5 * 60_000), location(2, [old(2)])] },
  { name: 'a location whose flag changed after, without packages', locations: [location(1, [], 5 * 60_000), location(2, [old(2)])] },
  { name: 'a location whose flag changed inside the overlap, with old packages', locations: [location(1, [old(1)], inOverlap)] },
  { name: 'a location whose flag changed long before, without packages', locations: [location(1, [], -day), location(2, [old(2)])] },
  { name: 'the sales order’s own flag changed after: locations with and without packages', flagChanged: 5 * 60_000, locations: [location(1, [old(1)]), location(2, [])] },
  { name: 'the sales order’s own flag changed after: a location without packages only', flagChanged: 5 * 60_000, locations: [location(1, [])] },
  { name: 'the sales order’s own flag changed after, with a new package too', flagChanged: 5 * 60_000, locations: [location(1, [old(1), pkg(2, 2 * hour, 2 * hour)]), location(2, [])] },
  { name: 'the sales order’s own flag changed inside the overlap', flagChanged: inOverlap, locations: [location(1, [old(1)]), location(2, [])] },
  { name: 'old packages only: nothing new', locations: [location(1, [old(1), old(2)]), location(2, [old(3)])] },
  { name: 'no locations', locations: [] },
  { name: 'no locations, its own flag changed after', flagChanged: 5 * 60_000, locations: [] },
  { name: 'a flagged location without packages beside one with a new package', locations: [location(1, [], 5 * 60_000), location(2, [old(1), pkg(2, 2 * hour, 2 * hour)])] },
  { name: 'an unflagged location without packages beside one with a new package', locations: [location(1, []), location(2, [pkg(1, 2 * hour, 2 * hour)])] },
  { name: 'a location without packages beside one with a late-visible package', locations: [location(1, [], 5 * 60_000), location(2, [pkg(1, -day, hour)])] },
  { name: 'came under its purchase order after, old packages only', purchaseOrderSet: 5 * 60_000, locations: [location(1, [old(1)])] },
  { name: 'came under its purchase order after, with a new package', purchaseOrderSet: 5 * 60_000, locations: [location(1, [pkg(1, 3 * hour, 3 * hour)]), location(2, [])] },
  { name: 'an old package whose references changed after', locations: [location(1, [old(1), referencesChanged(2, 10 * 60_000)])] },
  { name: 'an old package whose references changed inside the overlap', locations: [location(1, [referencesChanged(1, inOverlap)])] },
  { name: 'an old package whose references changed long before', locations: [location(1, [referencesChanged(1, -hour)])] },
  { name: 'references changed after beside a new package shipped later', locations: [location(1, [referencesChanged(1, 10 * 60_000)]), location(2, [pkg(2, 2 * hour, 2 * hour)])] },
  { name: 'references changed after, beside a flagged location without packages', locations: [location(1, [], 5 * 60_000), location(2, [referencesChanged(1, hour)])] },
];

const documentOf = (row: Row, i: number): ShipmentsDocument => {
  const salesOrderNumber = `SO-${i}`;
  const times = [...row.locations.flatMap((l) => [l.completeChangedAt, ...l.packages.flatMap((p) => [p.shipmentDate, p.visibleAt, p.referencesChangedAt])]), row.flagChanged, row.purchaseOrderSet]
    .filter((t): t is Date | number => t !== undefined)
    .map((t) => (typeof t === 'number' ? T + t : t.getTime()));
  return {
    _id: documentId('C1', salesOrderNumber),
    clientId: 'C1',
    salesOrderNumber,
    purchaseOrderNumber: `PO-${i}`,
    sequence: 1,
    completedAsWhole: false,
    complete: row.locations.length > 0 && row.locations.every((l) => l.complete),
    locations: row.locations,
    ...(row.flagChanged !== undefined ? { completeChangedAt: at(row.flagChanged) } : {}),
    ...(row.purchaseOrderSet !== undefined ? { purchaseOrderSetAt: at(row.purchaseOrderSet) } : {}),
    ...(times.length > 0 ? { lastNewsAt: new Date(Math.max(...times)) } : {}),
  };
};
const documents = rows.map(documentOf);

// The timestamp alone, and as the lookups read it (newsSinceOf: visible times less the overlap for clock skew).
const sinces: { name: string; since: ShipmentNewsSince }[] = [
  { name: 'visible times at the timestamp', since: { shippedSince: at(0), visibleSince: at(0) } },
  { name: 'visible times less the overlap', since: { shippedSince: at(0), visibleSince: at(-changeTimeOverlapMs) } },
];

// 1.0.0's rule, 2.0.0's (packages only) and 2.1.0's (packages only, reference changes counted).
const rules = [
  { packagesOnly: false, countsReferences: false },
  { packagesOnly: true, countsReferences: false },
  { packagesOnly: true, countsReferences: true },
] as const;
const combinations = rules.flatMap((rule) => [false, true].map((answeredWhole) => ({ answeredWhole, ...rule })));
type Combination = (typeof combinations)[number];
const ruleLabel = ({ packagesOnly, countsReferences }: Pick<Combination, 'packagesOnly' | 'countsReferences'>) => (countsReferences ? 'v21' : packagesOnly ? 'v2' : 'v1');
const label = (c: Combination) => `${c.answeredWhole ? 'whole' : 'news'}/${ruleLabel(c)}`;

/** What readNews keys the sales order at, null where it answers nothing of it (lookups.ts answers all of newsOf; lookups-v2.ts, newsOfV2). */
function jsKey(doc: ShipmentsDocument, since: ShipmentNewsSince, { answeredWhole, packagesOnly, countsReferences }: Combination): Date | null {
  const fresh = newsOf(doc, since, answeredWhole, countsReferences);
  if (!fresh || (packagesOnly && newsOfV2(doc, fresh, since) === undefined)) return null;
  const key = newsKey(packagesOnly ? newsKeyedInV2(doc, fresh) : fresh, since);
  // An answered sales order always has a key: Infinity would mean the two rules differ on what is answered.
  expect(key).not.toBe(Infinity);
  return new Date(key);
}

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'news-key-test');
  shipments = readModelCollections(mongo.db(uniqueNames('news-key').database), 1).shipments;
  await shipments.insertMany(documents);
});
afterAll(async () => {
  await mongo?.close();
});

const cases = sinces.flatMap(({ name: sinceName, since }) => rows.map((row, i) => ({ name: `${row.name} (${sinceName})`, doc: documents[i]!, since })));

describe('the server’s news key (serverNewsKey) against the JS rules it mirrors', () => {
  for (const { name, doc, since } of cases) it(name, async () => {
    const projected = Object.fromEntries(combinations.map((c) => [label(c), serverNewsKey(since, { exact: true, ...c })]));
    const lowers = { lower: serverNewsKey(since, { exact: false, countsReferences: false }), lowerV21: serverNewsKey(since, { exact: false, countsReferences: true }) };
    const [found] = await shipments.aggregate<Record<string, Date | null>>([{ $match: { _id: doc._id } }, { $project: { _id: 0, ...lowers, ...projected } }]).toArray();
    const { lower = null, lowerV21 = null, ...exact } = found!;
    const expected = Object.fromEntries(combinations.map((c) => [label(c), jsKey(doc, since, c)]));
    expect(exact).toEqual(expected);

    // The lower bound firstPurchaseOrders chooses by (exact: false), of the rule's own: never later than the exact key
    // of a sales order answered by its news, so null only where that answers nothing.
    const atOrBefore = (key: Date | null, what: string, bound = lower) => {
      if (key === null) return;
      expect(bound, `lower bound, ${what}`).not.toBeNull();
      expect(bound!.getTime(), `lower bound, ${what}`).toBeLessThanOrEqual(key.getTime());
    };
    for (const c of combinations.filter((c) => !c.answeredWhole)) atOrBefore(expected[label(c)]!, label(c), c.countsReferences ? lowerV21 : lower);
    // Answered whole, a sales order can key at the timestamp with a null or later bound: its purchase
    // order is whole by a member whose own flag changed or that came under it since, keyed at the
    // timestamp by the bound, or by one that left it, keyed there by firstPurchaseOrders. Such a
    // member's bound is at the timestamp at the latest, and never later than its whole key.
    if ([doc.completeChangedAt, doc.purchaseOrderSetAt].some((t) => t !== undefined && t >= since.visibleSince)) {
      atOrBefore(since.shippedSince, 'a member that may change its purchase order’s flag');
      for (const c of combinations.filter((c) => c.answeredWhole)) atOrBefore(expected[label(c)]!, label(c), c.countsReferences ? lowerV21 : lower);
    }
  });

  it('a references change alone: news to 2.1.0, keyed at the package’s shipmentDate; 1.0.0 and 2.0.0 answer nothing of it, nor choose it', async () => {
    const i = rows.findIndex((row) => row.name === 'an old package whose references changed after');
    const doc = documents[i]!;
    const since = sinces[1]!.since;
    const [found] = await shipments
      .aggregate<Record<string, Date | null>>([
        { $match: { _id: doc._id } },
        { $project: { _id: 0, v1: serverNewsKey(since, { exact: false, countsReferences: false }), v21: serverNewsKey(since, { exact: false, countsReferences: true }) } },
      ])
      .toArray();
    expect(found).toEqual({ v1: null, v21: at(-day) });
    expect(jsKey(doc, since, { answeredWhole: false, packagesOnly: true, countsReferences: true })).toEqual(at(-day));
    expect(jsKey(doc, since, { answeredWhole: false, packagesOnly: true, countsReferences: false })).toBeNull();
    expect(jsKey(doc, since, { answeredWhole: false, packagesOnly: false, countsReferences: false })).toBeNull();
  });
});
