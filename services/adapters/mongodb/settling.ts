// The rebuild's settling of change and visible times (services/replay/), a page of documents at a
// time, each page's writes guarded on the sequences read (settle-change-times.ts, settle-shipment-times.ts).
import { MongoServerError, type AnyBulkWriteOperation, type Collection, type Document, type Filter } from 'mongodb';

/** Settles the documents a cursor yields a page at a time (the last page partly full): bounded memory on any collection. */
async function settleInPages<T>(documents: AsyncIterable<T>, size: number, settle: (page: T[]) => Promise<void>): Promise<void> {
  let page: T[] = [];
  for await (const doc of documents) {
    page.push(doc);
    if (page.length >= size) {
      await settle(page);
      page = [];
    }
  }
  if (page.length > 0) await settle(page);
}

export interface SettleOptions {
  /**
   * Only the documents the live version changed at or after this time (read through its change- or
   * news-time index); every rebuilt document when absent.
   */
  liveChangedSince?: Date;
  /**
   * After the switch: what the live version does not show as it is gets the database's time now.
   * Before it (false): such times are left as they are, and only what the live version shows as it
   * is takes the live version's time.
   */
  stamp: boolean;
  /** After the switch: when the build became active; what the projector wrote in it since is its own news (see settledShipmentTimes). */
  switchedAt?: Date;
  /** Stops between pages (a Ctrl-C): the promise then rejects with the signal's reason; what is written is settled. */
  signal?: AbortSignal;
}

/** What settling a page of documents would write, and how many it carried and stamped. */
export interface PageSettlement<T extends Document> {
  ops: AnyBulkWriteOperation<T>[];
  carried: number;
  stamped: number;
}

/** A read model's document as settling reads it: its id, and the sequence its writes are guarded on. */
interface Sequenced extends Document {
  _id: string;
  sequence: number;
}

/** Where the live version keeps the time a document last changed for a poller, and the index that reads it. */
export interface LiveChangeTime {
  field: string;
  index: string;
  /** What else the index holds alone (its partial filter), instead of an answerable sales order. */
  only?: Document;
}

/** Chains cursors of ids. */
async function* chained(sources: AsyncIterable<Document>[]): AsyncGenerator<Document> {
  for (const source of sources) yield* source;
}

/**
 * Settles the rebuilt documents against the live version, a page of ids at a time: every rebuilt
 * document, or those the live version changed since `options.liveChangedSince`. `settleDocument`
 * adds to the page's settlement what one rebuilt document needs, given the live version's
 * (undefined where it has none); each page is written guarded (settleGuarded).
 */
export async function settleAgainstLive<T extends Sequenced>(
  rebuilt: Collection<T>,
  live: Collection<T>,
  changeTime: LiveChangeTime | LiveChangeTime[],
  options: SettleOptions,
  settleDocument: (doc: T, shown: T | undefined, settlement: PageSettlement<T>) => void,
): Promise<{ carried: number; stamped: number }> {
  const report = { carried: 0, stamped: 0 };
  const ids =
    options.liveChangedSince === undefined
      ? rebuilt.find({}, { projection: { _id: 1 }, sort: { _id: 1 } })
      : chained(
          [changeTime].flat().map((time) =>
            live.find({ ...(time.only ?? { purchaseOrderNumber: { $exists: true } }), [time.field]: { $gte: options.liveChangedSince } } as Filter<T>, { projection: { _id: 1 }, hint: time.index }),
          ),
        );
  const settle = (page: Document[]) => {
    options.signal?.throwIfAborted();
    return settleGuarded(
      rebuilt,
      async (only) => {
        const filter = { _id: { $in: only ?? page.map((d) => d._id as string) } } as Filter<T>;
        const [docs, shown] = await Promise.all([rebuilt.find(filter).toArray(), live.find(filter).toArray()]);
        const shownById = new Map(shown.map((d) => [d._id, d as T]));
        const settlement: PageSettlement<T> = { ops: [], carried: 0, stamped: 0 };
        for (const doc of docs) settleDocument(doc as T, shownById.get(doc._id), settlement);
        return settlement;
      },
      report,
    );
  };
  await settleInPages(ids, idsPerRead, settle);
  return report;
}

const idsPerRead = 1_000;

/**
 * Writes a page's settlement, guarded on the sequences read. Where a write moved a document on in
 * between (the projector following the switch), the documents the settlement wrote are read and
 * settled again (`only`: those whose write may have missed; the others are settled and settle to
 * nothing): that write keeps the times it did not change, among them a package's time that still
 * needs its stamp. Reading only those keeps a try short, so the few documents the live stream
 * keeps moving are caught between two of its events. Counts are the first reading's.
 */
export async function settleGuarded<T extends Document>(
  collection: Collection<T>,
  settlement: (only?: string[]) => Promise<PageSettlement<T>>,
  report: { carried: number; stamped: number },
): Promise<void> {
  let only: string[] | undefined;
  for (let attempt = 1; ; attempt++) {
    const { ops, carried, stamped } = await settlement(only);
    if (attempt === 1) {
      report.carried += carried;
      report.stamped += stamped;
    }
    if (ops.length === 0) return;
    const result = await collection.bulkWrite(ops, { ordered: false });
    if (result.matchedCount === ops.length) return;
    only = ops.map(settledId);
    if (attempt >= 20) throw new Error(`settling ${collection.collectionName}: documents kept moving under ${attempt} tries; run ossn replay again to finish`);
  }
}

/** The document a settlement's write is for: each is an updateOne of one _id (settle-change-times.ts, settle-shipment-times.ts). */
function settledId<T extends Document>(op: AnyBulkWriteOperation<T>): string {
  const id = 'updateOne' in op ? (op.updateOne.filter as Document)['_id'] : undefined;
  if (typeof id !== 'string') throw new Error('settling writes updateOne of one _id only');
  return id;
}

/** NamespaceNotFound: the collection does not exist, so it has no index. */
const namespaceNotFound = 26;

/** Whether the collection has the index named. */
export async function hasIndex<T extends Document>(collection: Collection<T>, name: string): Promise<boolean> {
  try {
    return (await collection.indexes()).some((index) => index.name === name);
  } catch (error) {
    if (error instanceof MongoServerError && error.code === namespaceNotFound) return false;
    throw error;
  }
}

