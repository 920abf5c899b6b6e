import type { AnyBulkWriteOperation } from 'mongodb';
import type { OrderStatusDocument, ReadModelCollections } from '../read-model-store/documents.js';
import { settleInPages } from './pages.js';

const idsPerRead = 1_000;

export interface ChangeTimeReport {
  /** Documents whose change time is now the one the live version shows. */
  carried: number;
  /** Documents the live version does not show yet: stamped at the switch. */
  stamped: number;
}

/**
 * Just before the switch, gives every rebuilt status the change time a poller of the live version
 * can rely on, whether the rebuild ran behind or ahead of the live version:
 * - where the live version shows the same or a later sequence, its change time (the change was
 *   shown then: it must not look new after the switch);
 * - where the live version shows an earlier state or none (the rebuild ran ahead of it), the
 *   switch time: a partner who polled the live version in between has not seen it, and the
 *   change must not carry a time before that poll (the rebuild stamped it when it wrote it).
 * Query services switch within seconds, well inside the 5 s overlap of the lookups. Each update
 * is guarded on the sequence read, so a write that moved the document on in between wins.
 */
export async function settleChangeTimes(rebuilt: ReadModelCollections, live: ReadModelCollections): Promise<ChangeTimeReport> {
  const report: ChangeTimeReport = { carried: 0, stamped: 0 };
  const cursor = rebuilt.orderStatus.find({}, { projection: { _id: 1, sequence: 1, changedAt: 1 }, sort: { _id: 1 } });
  const settle = async (page: Pick<OrderStatusDocument, '_id' | 'sequence' | 'changedAt'>[]) => {
    const shown = new Map(
      (await live.orderStatus.find({ _id: { $in: page.map((d) => d._id) } }, { projection: { _id: 1, sequence: 1, changedAt: 1 } }).toArray()).map((d) => [
        d._id,
        d,
      ]),
    );
    const ops: AnyBulkWriteOperation<OrderStatusDocument>[] = [];
    for (const doc of page) {
      const live = shown.get(doc._id);
      const filter = { _id: doc._id, sequence: doc.sequence };
      if (live && live.sequence >= doc.sequence) {
        report.carried++;
        if (live.changedAt.getTime() !== doc.changedAt.getTime()) ops.push({ updateOne: { filter, update: { $set: { changedAt: live.changedAt } } } });
      } else {
        report.stamped++;
        ops.push({ updateOne: { filter, update: { $currentDate: { changedAt: true } } } });
      }
    }
    if (ops.length > 0) await rebuilt.orderStatus.bulkWrite(ops, { ordered: false });
  };
  await settleInPages(cursor, idsPerRead, settle);
  return report;
}
