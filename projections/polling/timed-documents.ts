import type { LocationState, OrderStatusState, PackageState, ShipmentsState } from '../state.js';
import type { ResumeMark } from '../resume-marks.js';

// The read models' documents with the times a poller relies on (queries.md, the polling promise),
// as the change-time policy (change-times.ts) decides them and the store keeps them (the MongoDB
// adapter's documents add their _id and indexes).

/**
 * The change time that status queryType 3 filters on.
 *
 * It is the service's own record of when a change became visible, never the ERP's occurredAt:
 * - No miss while the projector lags: `changedAt` is set by the database server itself
 *   (`$currentDate`) in the same single-document update that makes the new state visible, so a
 *   change is never visible with a change time earlier than a poll that could not see it, however
 *   far behind the topic the projector runs (occurredAt could be hours old when it lands).
 * - No false news after a rebuild: a rebuild fills a new collection version; where the rebuilt
 *   state is at or below the sequence the previous version already showed, it carries that
 *   version's `changedAt` over instead of stamping a new one (see `change-times.ts`).
 * The query side subtracts a small overlap (see the lookups) for clock skew between servers;
 * a partner may then see a change twice, never zero times.
 */
export interface TimedOrderStatus extends OrderStatusState {
  /** What the document holds of its partition, for a retry after a write that reached one read model only (resume-marks.ts). */
  resume?: ResumeMark;
  /**
   * 1.0.0's change time: stamped only in a write that moves `statusSequence` (a status event), so
   * that events of contract v2 alone show 1.0.0 pollers nothing. Absent before the first status
   * (a document an event of a v2 type made is unanswerable until then).
   */
  changedAt?: Date;
  /**
   * 2.0.0's change time (queryType lastUpdate): stamped in every write, whatever it changes (an
   * issue, a line, a contact too); carried over by a rebuild like `changedAt`. Documents written
   * before 2.0.0 lack it (and the two fields below): a rebuild brings them.
   */
  updatedAt?: Date;
  /** The ids of every issue kept (`issues`), flat, so that getIssue reads them through a multikey index. */
  issueIds?: string[];
  /** Whether an issue is Open or Pending: allOpenIssues reads these through an index. */
  openIssue?: boolean;
}

/** The store's own fields of an order-status document: a projection without them reads it as the state the projections fold. */
export const orderStatusStoreFields = { changedAt: 0, updatedAt: 0, issueIds: 0, openIssue: 0, resume: 0 } as const;

/**
 * The times that shipment queryType 3 filters on besides shipmentDate, each the service's own
 * record, from the database server's clock, of when something became visible to partners (see
 * `change-times.ts` for when each is stamped, kept or carried over). A package posted late, or a
 * complete flag that changed, is news to a partner who polled before it became visible, whatever
 * its shipmentDate. Documents written before these times were recorded lack them: what they hold
 * was visible long ago.
 */
export interface StoredPackage extends PackageState {
  /** When this package, as it is, was made visible. */
  visibleAt?: Date;
  /**
   * When its shipReferences last changed (sent again with others, or without them): news to 2.1.0's
   * pollers, which show them, and to no one else (docs/design/queries.md). Absent while they never
   * changed since it was made visible: a package first shipped with them is news by visibleAt.
   */
  referencesChangedAt?: Date;
}

export interface StoredLocation extends Omit<LocationState, 'packages'> {
  /** When this location's complete flag last changed; absent while it never did. */
  completeChangedAt?: Date;
  packages: StoredPackage[];
}

/** A purchase order a sales order left (moved to another, or its number dropped), and when that became visible. */
export interface LeftPurchaseOrder {
  purchaseOrderNumber: string;
  at: Date;
}

export interface TimedShipments extends Omit<ShipmentsState, 'locations'> {
  locations: StoredLocation[];
  /** As TimedOrderStatus's. */
  resume?: ResumeMark;
  /**
   * When the sales order's complete flag last changed, and when it came under its purchase order
   * number (its packages are then new to that purchase order); absent while it never did. With
   * the flags of its purchase order's other sales orders they tell whether that purchase order's
   * complete flag changed since a time.
   */
  completeChangedAt?: Date;
  purchaseOrderSetAt?: Date;
  /**
   * The latest of its packages' shipmentDates, visible times and references times, its locations' flag times, its own
   * flag time, the time it came under its purchase order and those it left purchase orders at (each can change an order's flag): a
   * sales order has news since a time only when this is at or after it, so queryType 3 finds
   * them through one plain index, one key a sales order. Absent while it has none of these. A
   * references time makes a sales order a candidate of 1.0.0's and 2.0.0's queryType 3 too, which
   * then find nothing of it to answer (their news rules do not read it).
   */
  lastNewsAt?: Date;
  /**
   * Each purchase order this sales order left, at most one entry a number, with the time it left
   * last: its members changed then, news to its pollers (queryType 3 answers it whole). Read
   * through by_left_time, whatever the sales order's number is now.
   */
  leftPurchaseOrders?: LeftPurchaseOrder[];
}

