import type { Db } from 'mongodb';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import { orderStatusStateProjection, readModelCollections, shipmentsStateProjection } from '../../services/adapters/mongodb/documents.js';

/** Every read model of the database (version 1), as states: sorted by id, without store-only fields. */
export async function readModels(db: Db) {
  const collections = readModelCollections(db, 1);
  const [statuses, shipments] = await Promise.all([
    collections.orderStatus.find({}, { projection: orderStatusStateProjection }).sort({ _id: 1 }).toArray(),
    collections.shipments.find({}, { projection: shipmentsStateProjection }).sort({ _id: 1 }).toArray(),
  ]);
  return { statuses, shipments };
}

/** The read models the events should produce, in the shape readModels returns. */
export function reference(events: ErpEvent[]) {
  const folded = foldEvents(events);
  const byKey = <S>(m: Map<string, S>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, s]) => s);
  return { statuses: byKey(folded.orderStatus), shipments: byKey(folded.shipments) };
}
