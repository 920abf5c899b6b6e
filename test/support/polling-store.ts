// A shipments read model held in memory, written by the change-time policy with a clock the test
// turns, and queryType 3 answered from it by the news rules (what the MongoDB lookups compute on
// the server, said here plainly): for property tests of the polling promise without I/O.
import { purchaseOrderComplete } from '../../projections/completion.js';
import type { ShipmentsState } from '../../projections/state.js';
import type { ShipmentsDocument } from '../../services/adapters/mongodb/documents.js';
import type { TimeSource, VisibleTimes } from '../../projections/polling/change-times.js';
import { newsOf, purchaseOrderCompleteChanged, type ShipmentNewsSince } from '../../projections/polling/shipment-news.js';

/** A document as a write with `times` leaves it over `stored`, the server's clock at `at`. */
export function written(key: string, state: ShipmentsState, times: VisibleTimes, stored: ShipmentsDocument | undefined, at: Date): ShipmentsDocument {
  const time = (source: TimeSource, from: () => Date | undefined): Date | undefined =>
    source.from === 'now' ? at : source.from === 'value' ? source.at : source.from === 'stored' ? from() : undefined;
  const left = new Map((stored?.leftPurchaseOrders ?? []).map((e) => [e.purchaseOrderNumber, e.at]));
  for (const number of times.left?.drop ?? []) left.delete(number);
  for (const entry of times.left?.set ?? []) left.set(entry.purchaseOrderNumber, time(entry.at, () => undefined)!);
  const doc: ShipmentsDocument = {
    _id: key,
    ...state,
    locations: state.locations.map((location, i) => {
      const storedLocation = (source: TimeSource) => (source.from === 'stored' && source.location !== undefined ? stored?.locations[source.location] : undefined);
      const lt = times.locations[i]!;
      const flagAt = time(lt.completeChangedAt, () => storedLocation(lt.completeChangedAt)?.completeChangedAt);
      return {
        ...location,
        ...(flagAt ? { completeChangedAt: flagAt } : {}),
        packages: location.packages.map((pkg, j) => {
          const storedPackage = (source: TimeSource) => (source.from === 'stored' ? storedLocation(source)?.packages[source.package!] : undefined);
          const [source, references] = [lt.packages[j]!, lt.references[j]!];
          const visibleAt = time(source, () => storedPackage(source)?.visibleAt);
          const referencesChangedAt = time(references, () => storedPackage(references)?.referencesChangedAt);
          return { ...pkg, ...(visibleAt ? { visibleAt } : {}), ...(referencesChangedAt ? { referencesChangedAt } : {}) };
        }),
      };
    }),
  };
  const flagAt = time(times.completeChangedAt, () => stored?.completeChangedAt);
  const setAt = time(times.purchaseOrderSetAt, () => stored?.purchaseOrderSetAt);
  if (flagAt) doc.completeChangedAt = flagAt;
  if (setAt) doc.purchaseOrderSetAt = setAt;
  if (left.size > 0) doc.leftPurchaseOrders = [...left].map(([purchaseOrderNumber, leftAt]) => ({ purchaseOrderNumber, at: leftAt }));
  return doc;
}

/** One purchase order of a queryType 3 answer: its flag over all its sales orders, and each sales order answered. */
export interface AnsweredPurchaseOrder {
  purchaseOrderNumber: string;
  complete: boolean;
  salesOrders: ShipmentsState[];
}

/**
 * Shipment queryType 3 over documents in memory, uncapped: every purchase order with a sales order
 * with news since, or that a sales order left since; whole where its flag changed or a member left.
 */
export function answerNewsSince(docs: Iterable<ShipmentsDocument>, since: ShipmentNewsSince): AnsweredPurchaseOrder[] {
  const all = [...docs];
  const byPurchaseOrder = new Map<string, ShipmentsDocument[]>();
  for (const doc of all) if (doc.purchaseOrderNumber !== undefined) byPurchaseOrder.set(doc.purchaseOrderNumber, [...(byPurchaseOrder.get(doc.purchaseOrderNumber) ?? []), doc]);
  const left = new Set(all.flatMap((doc) => (doc.leftPurchaseOrders ?? []).filter((e) => e.at >= since.visibleSince).map((e) => e.purchaseOrderNumber)));
  const answer: AnsweredPurchaseOrder[] = [];
  for (const [purchaseOrderNumber, members] of [...byPurchaseOrder].sort(([a], [b]) => a.localeCompare(b))) {
    const whole = left.has(purchaseOrderNumber) || purchaseOrderCompleteChanged(members, since.visibleSince);
    const salesOrders = members.flatMap((doc) => newsOf(doc, since, whole) ?? []);
    if (salesOrders.length > 0) answer.push({ purchaseOrderNumber, complete: purchaseOrderComplete(members), salesOrders });
  }
  return answer;
}
