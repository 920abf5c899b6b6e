import type { ReadModelCollections } from './documents.js';
import { updatePipeline } from './shipments-update.js';
import { stripTimes } from '../../../projections/polling/shipment-news.js';
import { holdsAll, settledShipmentTimes } from '../../../projections/polling/change-times.js';
import { hasIndex, settleAgainstLive, type LiveChangeTime, type SettleOptions } from './settling.js';

export interface ShipmentTimeReport {
  /** Sales orders whose every visible time is now the one the live version shows. */
  carried: number;
  /** Sales orders with a package or flag the live version does not show yet: stamped at the switch. */
  stamped: number;
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
  const changeTimes: LiveChangeTime[] = [{ field: 'lastNewsAt', index: 'by_news_time' }];
  // A sales order that left its purchase order with no number now is not in by_news_time (a live version made before by_left_time lacks both).
  if (options.liveChangedSince !== undefined && (await hasIndex(live.shipments, 'by_left_time'))) {
    changeTimes.push({ field: 'leftPurchaseOrders.at', index: 'by_left_time', only: { purchaseOrderNumber: { $exists: false } } });
  }
  return settleAgainstLive(rebuilt.shipments, live.shipments, changeTimes, options, (doc, shown, settlement) => {
    const { times, stamped } = settledShipmentTimes(doc, shown, options.stamp, options.switchedAt);
    if (stamped) settlement.stamped++;
    else settlement.carried++;
    if (holdsAll(doc, times)) return;
    settlement.ops.push({ updateOne: { filter: { _id: doc._id, sequence: doc.sequence }, update: updatePipeline({}, [], stripTimes(doc), times) } });
  });
}
