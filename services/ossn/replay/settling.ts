import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';

/** Settles the documents a cursor yields a page at a time (the last page partly full): bounded memory on any collection. */
export async function settleInPages<T>(documents: AsyncIterable<T>, size: number, settle: (page: T[]) => Promise<void>): Promise<void> {
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
}

/** What settling a page of documents would write, and how many it carried and stamped. */
export interface PageSettlement<T extends Document> {
  ops: AnyBulkWriteOperation<T>[];
  carried: number;
  stamped: number;
}

/**
 * Writes a page's settlement, guarded on the sequences read. Where a write moved a document on in
 * between (the projector following the switch), the page is read and settled again: that write
 * keeps the times it did not change, among them a package's time that still needs its stamp.
 * Counts are the first reading's.
 */
export async function settleGuarded<T extends Document>(
  collection: Collection<T>,
  settlement: () => Promise<PageSettlement<T>>,
  report: { carried: number; stamped: number },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { ops, carried, stamped } = await settlement();
    if (attempt === 1) {
      report.carried += carried;
      report.stamped += stamped;
    }
    if (ops.length === 0) return;
    const result = await collection.bulkWrite(ops, { ordered: false });
    if (result.matchedCount === ops.length) return;
    if (attempt >= 20) throw new Error(`settling ${collection.collectionName}: documents kept moving under ${attempt} tries; run ossn replay again to finish`);
  }
}
