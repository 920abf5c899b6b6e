// The bench's data set: demo sales orders folded by the projections and inserted in bulk as
// read-model documents shaped exactly as the store writes them (services/adapters/mongodb/writes.ts:
// the state, `_id` <clientId>:<salesOrderNumber>, `changedAt`, `updatedAt`, `issueIds` and `openIssue` on statuses, visible times and
// `lastNewsAt` on shipments, each package made visible when it shipped), with the store's indexes. A database already seeded with the same parameters is
// reused as it is.
import type { Collection, Db, Document, OptionalUnlessRequiredId } from 'mongodb';
import { generateDemoEvents } from '../../services/ossn/demo-events/demo-events.js';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import type { OrderStatusState, ShipmentsState } from '../../projections/state.js';
import { documentId, ensureIndexes, issueFieldsOf, readModelCollections, type OrderStatusDocument, type ReadModelCollections, type ShipmentsDocument } from '../../services/adapters/mongodb/documents.js';

/** Bump when the documents written change shape, so older bench databases are seeded again. */
const SEED_FORMAT = 4;
const READ_MODEL_VERSION = 1;
/** The read-model version the seeded collections belong to: what a query service must read (READ_MODEL_VERSION). */
export const seededReadModelVersion = READ_MODEL_VERSION;
const BATCH = 1_000;
const META = 'bench_meta';

export interface SeedParams {
  /** Clients CLIENT-001 … sharing `orders` sales orders evenly. */
  clients: number;
  orders: number;
  /** Sales orders of the extra client BIG_CLIENT (0: none). */
  bigOrders: number;
  seed: number;
}

export const BIG_CLIENT = 'CLIENT-BIG';

export interface SeedSummary {
  statusDocuments: number;
  shipmentDocuments: number;
  /** Purchase order numbers per client (at most 500 each), for the requests. */
  purchaseOrders: Record<string, string[]>;
  /** Purchase orders of BIG_CLIENT with an open sales order: what its queryType 4 answers (at most 5,000). */
  bigOpenPurchaseOrders: number;
}

export const clientId = (index: number) => `CLIENT-${String(index + 1).padStart(3, '0')}`;

interface Meta {
  _id: string;
  format: number;
  params: SeedParams;
  summary: SeedSummary;
}

function sameParams(a: SeedParams, b: SeedParams): boolean {
  return a.clients === b.clients && a.orders === b.orders && a.bigOrders === b.bigOrders && a.seed === b.seed;
}

function statusDocument(state: OrderStatusState, changedAt: Date): OrderStatusDocument {
  return { _id: documentId(state.clientId, state.salesOrderNumber), ...state, changedAt, updatedAt: changedAt, ...issueFieldsOf(state) };
}

function shipmentsDocument(state: ShipmentsState): ShipmentsDocument {
  const dates = state.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime()));
  return {
    _id: documentId(state.clientId, state.salesOrderNumber),
    ...state,
    locations: state.locations.map((l) => ({ ...l, packages: l.packages.map((p) => ({ ...p, visibleAt: p.shipmentDate })) })),
    ...(dates.length > 0 ? { lastNewsAt: new Date(Math.max(...dates)) } : {}),
  };
}

async function insertAll<T extends Document & { _id: string }>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<void> {
  for (let i = 0; i < docs.length; i += BATCH) await collection.insertMany(docs.slice(i, i + BATCH), { ordered: false });
}

/** One client's demo sales orders, folded: the demo generator numbers clients itself, so its one client is renamed. */
function foldClient(id: string, orders: number, seed: number) {
  const events = generateDemoEvents({ clients: 1, orders, seed }).map((event) => ({ ...event, clientId: id }) as ErpEvent);
  const folded = foldEvents(events);
  if (folded.rejected.length > 0) throw new Error(`demo data for ${id}: ${folded.rejected.length} events rejected`);
  return folded;
}

/**
 * Leaves `db` holding the data set of `params` (seeding it afresh unless it already does) and
 * returns what the bench needs to know about it.
 */
export async function ensureSeeded(db: Db, params: SeedParams, log: (line: string) => void): Promise<{ collections: ReadModelCollections; summary: SeedSummary; reused: boolean }> {
  const collections = readModelCollections(db, READ_MODEL_VERSION);
  const meta = await db.collection<Meta>(META).findOne({ _id: 'seed' });
  if (meta && meta.format === SEED_FORMAT && sameParams(meta.params, params)) {
    log(`reusing ${db.databaseName} (seeded before with these parameters)`);
    return { collections, summary: meta.summary, reused: true };
  }

  log(`seeding ${db.databaseName}: ${params.clients} clients, ${params.orders} sales orders${params.bigOrders ? `, plus ${BIG_CLIENT} with ${params.bigOrders}` : ''}`);
  await db.dropDatabase();
  await ensureIndexes(collections);
  const started = Date.now();
  // Change times spread over the last 30 days, clients interleaved, as a live store's would be.
  const changeSpanMs = 30 * 24 * 3_600_000;
  let spread = params.seed >>> 0;
  const changedAt = () => {
    spread = (Math.imul(spread, 1_664_525) + 1_013_904_223) >>> 0;
    return new Date(started - (spread / 2 ** 32) * changeSpanMs);
  };
  const summary: SeedSummary = { statusDocuments: 0, shipmentDocuments: 0, purchaseOrders: {}, bigOpenPurchaseOrders: 0 };
  const clients = [...Array.from({ length: params.clients }, (_, c) => clientId(c)), ...(params.bigOrders > 0 ? [BIG_CLIENT] : [])];

  for (const [c, id] of clients.entries()) {
    const orders = id === BIG_CLIENT ? params.bigOrders : Math.floor(params.orders / params.clients) + (c < params.orders % params.clients ? 1 : 0);
    if (orders === 0) continue;
    const folded = foldClient(id, orders, params.seed * 1_000 + c);
    const statuses = [...folded.orderStatus.values()];
    await insertAll(collections.orderStatus, statuses.map((s) => statusDocument(s, changedAt())));
    await insertAll(collections.shipments, [...folded.shipments.values()].map(shipmentsDocument));
    summary.statusDocuments += folded.orderStatus.size;
    summary.shipmentDocuments += folded.shipments.size;
    summary.purchaseOrders[id] = [...new Set(statuses.flatMap((s) => (s.purchaseOrderNumber ? [s.purchaseOrderNumber] : [])))].slice(0, 500);
    if (id === BIG_CLIENT) summary.bigOpenPurchaseOrders = new Set(statuses.filter((s) => s.open && s.purchaseOrderNumber).map((s) => s.purchaseOrderNumber)).size;
    if ((c + 1) % Math.max(10, Math.ceil(clients.length / 10)) === 0 || c === clients.length - 1) {
      log(`  ${c + 1}/${clients.length} clients, ${summary.statusDocuments} sales orders written (${Math.round((Date.now() - started) / 1000)} s)`);
    }
  }
  await db.collection<Meta>(META).insertOne({ _id: 'seed', format: SEED_FORMAT, params, summary });
  log(`seeded in ${Math.round((Date.now() - started) / 1000)} s`);
  return { collections, summary, reused: false };
}
