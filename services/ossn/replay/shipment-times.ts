import type { ReadModelCollections, ShipmentsDocument } from '../../adapters/mongodb/documents.js';
import { updatePipeline } from '../../adapters/mongodb/shipments-update.js';
import { stripTimes } from '../../domain/polling/shipment-news.js';
import { carriedOver, stampsAny, visibleTimes, type TimeSource, type VisibleTimes } from '../../domain/polling/change-times.js';
import { settleAgainstLive, type SettleOptions } from './settling.js';

export interface ShipmentTimeReport {
  /** Sales orders whose every visible time is now the one the live version shows. */
  carried: number;
  /** Sales orders with a package or flag the live version does not show yet: stamped at the switch. */
  stamped: number;
}


const holds = (source: TimeSource, time: Date | undefined) =>
  source.from === 'stored' || (source.from === 'none' ? time === undefined : source.from === 'value' && time?.getTime() === source.at.getTime());

/** Whether the rebuilt document holds these times already (none of them is 'now'). */
function holdsAll(doc: ShipmentsDocument, times: VisibleTimes): boolean {
  return (
    holds(times.completeChangedAt, doc.completeChangedAt) &&
    holds(times.purchaseOrderSetAt, doc.purchaseOrderSetAt) &&
    times.locations.every((l, i) => holds(l.completeChangedAt, doc.locations[i]!.completeChangedAt) && l.packages.every((p, j) => holds(p, doc.locations[i]!.packages[j]!.visibleAt)))
  );
}

/**
 * Right after the switch, gives every rebuilt shipments document the visible times a poller of the
 * live version can rely on (as settleChangeTimes does for statuses): where the live version shows
 * a package or complete flag as it is, its time; where it does not (the rebuild ran ahead of it),
 * the database's time now, after the switch, for a partner who polled the live version has not seen it. Each
 * update is guarded on the sequence read; a page where a write moved a document on in between is
 * settled again (see settleGuarded): that write kept the times it did not change.
 */
export async function settleShipmentTimes(rebuilt: ReadModelCollections, live: ReadModelCollections, options: SettleOptions): Promise<ShipmentTimeReport> {
  return settleAgainstLive(rebuilt.shipments, live.shipments, { field: 'lastNewsAt', index: 'by_news_time' }, options, (doc, shown, settlement) => {
    const state = stripTimes(doc);
    // What a partner of the live version has seen, as if the document were written anew.
    const carried = carriedOver(visibleTimes(undefined, state), state, shown);
    if (stampsAny(carried)) settlement.stamped++;
    else settlement.carried++;
    const times = options.stamp ? carried : keepingUnshown(carried);
    if (holdsAll(doc, times)) return;
    settlement.ops.push({ updateOne: { filter: { _id: doc._id, sequence: doc.sequence }, update: updatePipeline({}, [], state, times) } });
  });
}

/** Before the switch: every time the live version does not give stays as the rebuilt document holds it. */
function keepingUnshown(times: VisibleTimes): VisibleTimes {
  const kept = (source: TimeSource, at: { location?: number; package?: number }): TimeSource => (source.from === 'now' ? { from: 'stored', ...at } : source);
  return {
    ...times,
    completeChangedAt: kept(times.completeChangedAt, {}),
    purchaseOrderSetAt: kept(times.purchaseOrderSetAt, {}),
    locations: times.locations.map((l, i) => ({ completeChangedAt: kept(l.completeChangedAt, { location: i }), packages: l.packages.map((p, j) => kept(p, { location: i, package: j })) })),
  };
}
