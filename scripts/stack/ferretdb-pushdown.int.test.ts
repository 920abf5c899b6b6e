import { MongoClient, type CommandStartedEvent, type Db, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../contracts/demo-events.js';
import { foldEvents } from '../../projections/fold.js';
import { documentId, ensureIndexes, readModelCollections, type ReadModelCollections } from '../../services/read-model-store/documents.js';
import { MongoOrderLookups } from '../../services/read-model-store/lookups.js';
import type { OrderLookups } from '../../services/query/ports.js';
import { startFerretdb, type FerretdbProcess } from '../../test/support/ferretdb-process.js';

// The local stack's FerretDB pushes filters down to SQLite (ferretdb-patches.ts,
// ferretdb/_sqlite/filter_pushdown.go). This file starts its own two FerretDB servers, the
// patched one and FerretDB as released, whatever servers the other tests run against.

let patched: FerretdbProcess;
let upstream: FerretdbProcess;
const clients: MongoClient[] = [];

beforeAll(async () => {
  [patched, upstream] = await Promise.all([startFerretdb('patched'), startFerretdb('upstream')]);
}, 600_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([patched?.stop(), upstream?.stop()]);
});

function connect(uri: string, options: { monitorCommands?: boolean } = {}): MongoClient {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, ...options });
  clients.push(client);
  return client;
}

/** Read models of 20 clients' demo sales orders, as the projector writes them, with the store's indexes. */
async function seedReadModels(db: Db, ordersPerClient: number): Promise<ReadModelCollections> {
  const collections = readModelCollections(db, 1);
  await ensureIndexes(collections);
  const base = Date.parse('2025-03-01T00:00:00Z');
  for (let c = 0; c < 20; c++) {
    const clientId = `CLIENT-${String(c + 1).padStart(3, '0')}`;
    const events = generateDemoEvents({ clients: 1, orders: ordersPerClient, seed: c + 1 }).map((event) => ({ ...event, clientId }));
    const folded = foldEvents(events);
    const statuses = [...folded.orderStatus.values()].map((state, i) => ({
      _id: documentId(state.clientId, state.salesOrderNumber),
      ...state,
      changedAt: new Date(base + (i * 20 + c) * 60_000),
    }));
    const shipments = [...folded.shipments.values()].map((state) => ({
      _id: documentId(state.clientId, state.salesOrderNumber),
      ...state,
      shipmentDates: state.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate)),
    }));
    await collections.orderStatus.insertMany(statuses);
    if (shipments.length > 0) await collections.shipments.insertMany(shipments);
  }
  return collections;
}

/** The find commands a lookup sends, captured from the driver's command monitoring. */
async function findsOf(client: MongoClient, lookup: () => Promise<unknown>): Promise<Document[]> {
  const finds: Document[] = [];
  const listener = (event: CommandStartedEvent) => {
    if (event.commandName === 'find') finds.push(event.command);
  };
  client.on('commandStarted', listener);
  try {
    await lookup();
  } finally {
    client.off('commandStarted', listener);
  }
  return finds;
}

/** SQLite's plan for a find command, as FerretDB's explain reports it: one line per step. */
async function planOf(db: Db, find: Document): Promise<string[]> {
  const command = Object.fromEntries(['find', 'filter', 'sort', 'projection'].flatMap((key) => (find[key] === undefined ? [] : [[key, find[key]]])));
  const explained = await db.command({ explain: command, verbosity: 'queryPlanner' });
  return (explained.queryPlanner?.Plan ?? []) as string[];
}

/** Whether the plan reads the collection's table through indexes only, never by a full scan, one of them the named one (if any). */
function readsThrough(plan: string[], index?: string): boolean {
  const table = plan.map((line) => /(?:SEARCH|SCAN) (\S+)/.exec(line)?.[1]).find((name) => name && name !== 'json_each');
  if (!table) return false;
  const tableSteps = plan.filter((line) => new RegExp(`(SEARCH|SCAN) ${table}\\b`).test(line));
  return tableSteps.every((line) => line.includes(' USING INDEX ')) && (index === undefined || tableSteps.some((line) => line.includes(`USING INDEX ${table}_${index} `)));
}

/** A shipped sales order of one client, to look up by its numbers. */
interface Shipped {
  clientId: string;
  purchaseOrderNumber: string;
  salesOrderNumber: string;
}

const lookupsToCheck: { name: string; run: (lookups: OrderLookups, so: Shipped) => Promise<unknown>; indexes: string[] }[] = [
  { name: 'status queryType 1', run: (l, so) => l.orderStatus([so.clientId, 'CLIENT-007'], { queryType: 1, referenceNumber: so.purchaseOrderNumber }), indexes: ['by_purchase_order'] },
  { name: 'status queryType 2', run: (l, so) => l.orderStatus([so.clientId], { queryType: 2, referenceNumber: so.salesOrderNumber }), indexes: ['by_sales_order'] },
  {
    name: 'status queryType 3',
    run: (l, so) => l.orderStatus([so.clientId], { queryType: 3, statusTimeStamp: new Date('2025-03-03T00:00:00Z') }),
    indexes: ['by_change_time'],
  },
  { name: 'status queryType 4', run: (l, so) => l.orderStatus([so.clientId], { queryType: 4 }), indexes: ['open_by_purchase_order'] },
  // Shipments by purchase order or sales order, then the completion lookup of their purchase orders.
  {
    name: 'shipments queryType 1 and the completion lookup',
    run: (l, so) => l.shipmentNotifications([so.clientId], { queryType: 1, referenceNumber: so.purchaseOrderNumber }),
    indexes: ['by_purchase_order', 'by_purchase_order'],
  },
  {
    name: 'shipments queryType 2 and the completion lookup',
    run: (l, so) => l.shipmentNotifications([so.clientId], { queryType: 2, referenceNumber: so.salesOrderNumber }),
    indexes: ['by_sales_order', 'by_purchase_order'],
  },
];

describe('the patched FerretDB reads each lookup through its index', () => {
  let patchedDb: Db;
  let upstreamDb: Db;
  let patchedLookups: MongoOrderLookups;
  let upstreamLookups: MongoOrderLookups;
  let patchedClient: MongoClient;
  let upstreamClient: MongoClient;
  let shipped: Shipped;

  beforeAll(async () => {
    patchedClient = connect(patched.uri, { monitorCommands: true });
    upstreamClient = connect(upstream.uri, { monitorCommands: true });
    patchedDb = patchedClient.db('plans');
    upstreamDb = upstreamClient.db('plans');
    const [patchedStore, upstreamStore] = await Promise.all([seedReadModels(patchedDb, 250), seedReadModels(upstreamDb, 250)]);
    patchedLookups = new MongoOrderLookups(patchedStore);
    upstreamLookups = new MongoOrderLookups(upstreamStore);
    const found = await patchedStore.shipments.findOne({ clientId: 'CLIENT-003', purchaseOrderNumber: { $exists: true }, 'locations.0': { $exists: true } });
    shipped = { clientId: found!.clientId, purchaseOrderNumber: found!.purchaseOrderNumber!, salesOrderNumber: found!.salesOrderNumber };
  }, 300_000);

  it.each(lookupsToCheck)('$name', async ({ run: lookup, indexes }) => {
    const run = (lookups: OrderLookups) => lookup(lookups, shipped);
    const finds = await findsOf(patchedClient, () => run(patchedLookups));
    expect(finds.map((find) => find.find as string).length).toBe(indexes.length);
    for (const [i, find] of finds.entries()) {
      const plan = await planOf(patchedDb, find);
      expect(readsThrough(plan, indexes[i]!), `${JSON.stringify(find.filter)}\n${plan.join('\n')}`).toBe(true);
    }
    // The same lookup on FerretDB as released reads the whole table, and answers the same.
    const upstreamFinds = await findsOf(upstreamClient, () => run(upstreamLookups));
    expect(upstreamFinds).toHaveLength(indexes.length);
    expect(readsThrough(await planOf(upstreamDb, upstreamFinds[0]!), indexes[0]!)).toBe(false);
    expect(await run(patchedLookups)).toEqual(await run(upstreamLookups));
  });

  it('status queryType 3 reads only the range of change times asked for, once a client has many sales orders', async () => {
    // SQLite reads a few hundred rows of a client rather than a range; at 1,000 a client it takes the range.
    const db = patchedClient.db('change_times');
    const store = readModelCollections(db, 1);
    await ensureIndexes(store);
    const base = Date.parse('2025-03-01T00:00:00Z');
    for (let c = 0; c < 20; c++) {
      const clientId = `CLIENT-${String(c + 1).padStart(3, '0')}`;
      await store.orderStatus.insertMany(
        Array.from({ length: 1_000 }, (_, i) => ({
          _id: documentId(clientId, `SO-${i}`),
          clientId,
          salesOrderNumber: `SO-${i}`,
          purchaseOrderNumber: `PO-${i}`,
          sequence: 1,
          statusId: 20,
          open: true,
          validTimestamp: new Date(base),
          changedAt: new Date(base + i * 60_000),
        })),
      );
    }
    const lookups = new MongoOrderLookups(store);
    const since = new Date(base + 990 * 60_000);
    const [find] = await findsOf(patchedClient, () => lookups.orderStatus(['CLIENT-003'], { queryType: 3, statusTimeStamp: since }));
    const plan = await planOf(db, find!);
    expect(plan.join('\n')).toMatch(/USING INDEX \S+_by_change_time \(<expr>=\? AND <expr>>\? AND <expr><\?\)/);
  });

  it('shipments queryType 3 reads the clients through the shipment-date index and checks the dates inside SQLite', async () => {
    const finds = await findsOf(patchedClient, () => patchedLookups.shipmentNotifications(['CLIENT-003'], { queryType: 3, shipmentDateTimeStamp: new Date('2025-01-01T00:00:00Z') }));
    const shipmentFinds = finds.filter((find) => 'shipmentDates' in (find.filter as Document));
    expect(shipmentFinds.length).toBeGreaterThan(0);
    for (const find of shipmentFinds) {
      const plan = await planOf(patchedDb, find);
      expect(readsThrough(plan, 'by_shipment_date'), plan.join('\n')).toBe(true);
      expect(plan.join('\n')).toContain('SCAN json_each');
    }
    // The other finds, the completion lookup of a hundred purchase orders, read through an index
    // too (which one, SQLite decides by the client's size: here its few hundred rows).
    const completionFinds = finds.filter((find) => !shipmentFinds.includes(find));
    expect(completionFinds.length).toBeGreaterThan(0);
    for (const find of completionFinds) {
      const plan = await planOf(patchedDb, find);
      expect(readsThrough(plan), `${JSON.stringify(find.filter).slice(0, 300)}\n${plan.join('\n')}`).toBe(true);
    }
  });
});

// --- Results: the same documents as FerretDB as released, on data made to trip a pushdown up.

/** A small deterministic random source, so a failure can be reproduced. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const strings = ['PO-1', 'PO-2', 'po-1', 'PO-1 ', '', 'Ünïcødé', 'a"quote', 'back\\slash', '<tag>&', 'emoji 📦', '[bracket', 'true', '1735689600000'];
const dates = [
  new Date(-62_135_596_800_000), // year 1
  new Date(-1),
  new Date(0),
  new Date(999_999_999_999), // the last 12-digit millisecond
  new Date(1_000_000_000_000),
  new Date(1_735_689_599_999),
  new Date(1_735_689_600_000),
  new Date(1_735_689_600_001),
  new Date(9_999_999_999_999), // the last 13-digit millisecond
  new Date(10_000_000_000_000),
  new Date(253_402_300_799_999), // 9999-12-31
];
const others = [true, false, 1, 0, 1_735_689_600_000, 1.5, null, { a: 'PO-1' }];

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!;
}

/** One value for a field: a scalar of any kind, an array of some, or (undefined) no field at all. */
function value(next: () => number): unknown {
  const r = next();
  if (r < 0.1) return undefined;
  if (r < 0.4) return pick(next, strings);
  if (r < 0.65) return pick(next, dates);
  if (r < 0.75) return pick(next, others);
  const length = Math.floor(next() * 4);
  // FerretDB 1.x stores no arrays inside arrays; an array inside a document inside one, it does.
  return Array.from({ length }, () => (next() < 0.15 ? { a: [pick(next, strings), pick(next, dates)] } : pick(next, [...strings, ...dates, ...others])));
}

const fields = ['clientId', 'purchaseOrderNumber', 'open', 'changedAt', 'shipmentDates'] as const;

function generatedDocuments(count: number): Document[] {
  const next = random(20250301);
  return Array.from({ length: count }, (_, i) => {
    const doc: Document = { _id: `doc-${i}` };
    for (const field of fields) {
      const v = value(next);
      if (v !== undefined) doc[field] = v;
    }
    return doc;
  });
}

/** Filters of every shape the pushdown handles (and some it must leave alone), over every field. */
function generatedFilters(): Document[] {
  const filters: Document[] = [];
  const scalars = [...strings, ...dates, true, false];
  for (const field of fields) {
    for (const v of scalars) filters.push({ [field]: v }, { [field]: { $eq: v } });
    filters.push({ [field]: { $in: ['PO-1', 'Ünïcødé', true] } }, { [field]: { $in: [dates[6], dates[3], 'PO-2'] } }, { [field]: { $in: ['PO-1', null] } });
    filters.push({ [field]: { $in: ['PO-1', 1] } }, { [field]: { $exists: true, $in: ['PO-2', false] } }, { [field]: { $ne: 'PO-1' } });
    for (const low of dates) {
      for (const high of dates) {
        if (low.getTime() <= high.getTime()) {
          filters.push({ [field]: { $gte: low, $lt: high } }, { [field]: { $gt: low, $lte: high } }, { [field]: { $elemMatch: { $gte: low, $lt: high } } });
        }
      }
      filters.push({ [field]: { $gt: low } }, { [field]: { $lte: low } });
    }
  }
  // Several fields at once, as the lookups ask.
  for (const client of ['PO-1', 'true']) {
    filters.push({ clientId: { $in: [client, 'PO-2'] }, purchaseOrderNumber: 'PO-1', open: true });
    filters.push({ clientId: client, changedAt: { $gt: dates[4], $lt: dates[8] }, purchaseOrderNumber: { $exists: true } });
    filters.push({ clientId: { $in: [client] }, shipmentDates: { $gte: dates[5], $lt: dates[9] } });
  }
  filters.push({ _id: 'doc-7', clientId: 'PO-1' }, { _id: { $in: ['doc-1', 'doc-2', 'doc-3'] }, open: false });
  return filters;
}

describe('the patched FerretDB answers exactly as FerretDB as released', () => {
  const docs = generatedDocuments(600);
  const filters = generatedFilters();
  let patchedDb: Db;
  let upstreamDb: Db;

  beforeAll(async () => {
    patchedDb = connect(patched.uri).db('results');
    upstreamDb = connect(upstream.uri).db('results');
    for (const db of [patchedDb, upstreamDb]) {
      const collection = db.collection('generated');
      // The same indexes as the read models, so that the pushed-down conditions are read through them.
      await collection.createIndexes([
        { name: 'by_purchase_order', key: { clientId: 1, purchaseOrderNumber: 1 } },
        { name: 'by_change_time', key: { clientId: 1, changedAt: 1 } },
        { name: 'open_by_purchase_order', key: { clientId: 1, open: 1, purchaseOrderNumber: 1 } },
        { name: 'by_shipment_date', key: { clientId: 1, shipmentDates: 1 } },
      ]);
      await collection.insertMany(docs);
    }
  }, 120_000);

  it(`finds the same documents for each of the generated filters`, async () => {
    const ids = async (db: Db, filter: Document) =>
      (await db.collection('generated').find(filter, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)).sort();
    const differences: string[] = [];
    let matched = 0;
    for (const filter of filters) {
      const [expected, actual] = await Promise.all([ids(upstreamDb, filter), ids(patchedDb, filter)]);
      matched += expected.length;
      if (JSON.stringify(expected) !== JSON.stringify(actual)) {
        differences.push(`${JSON.stringify(filter)}: as released ${expected.length} [${expected.slice(0, 5).join(', ')}…], patched ${actual.length} [${actual.slice(0, 5).join(', ')}…]`);
      }
    }
    expect(differences).toEqual([]);
    // The data does trip the edges: filters match, some of them through arrays.
    expect(matched).toBeGreaterThan(filters.length);
  }, 300_000);

  it('pushes most of those filters down (explain says so), so the comparison tests the pushdown', async () => {
    let pushed = 0;
    for (const filter of filters) {
      const explained = await patchedDb.command({ explain: { find: 'generated', filter }, verbosity: 'queryPlanner' });
      if (explained.filterPushdown === true || explained.queryPlanner?.filterPushdown === true) pushed++;
    }
    expect(pushed).toBeGreaterThan(filters.length * 0.8);
  }, 120_000);
});
