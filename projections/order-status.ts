import type { ErpEvent, ErpEventOf } from '../contracts/erp-events.js';
import { isOpen } from '../contracts/status-types.js';
import { compact } from './compact.js';
import { withErpIssue } from './erp-issues.js';
import { unhandledEvent } from './event-rejected.js';
import { holdCategory, withHoldIssue } from './hold-issues.js';
import { toContacts, toLines } from './order-records.js';
import { alreadyApplied } from './sequence-guard.js';
import { statusSequenceOf, type OrderStatusState } from './state.js';

const optionalDate = (value: string | undefined): Date | undefined => (value === undefined ? undefined : new Date(value));

/** The day as the ERP wrote it (an RFC 3339 date-time starts with it), before any zone moves it. */
const writtenDay = (value: string | undefined): string | undefined => value?.slice(0, 10);

/** The order's details that outlive a status event: contract v2's issues, lines and contacts. */
const detailsOf = (state: OrderStatusState | undefined) => ({ lines: state?.lines, contacts: state?.contacts, issues: state?.issues });

/**
 * The event carries the full status state (not a delta), so it replaces the previous one; the
 * order's issues, lines and contacts stay, the derived hold issue following the status (§4.1).
 */
function onStatusChanged(state: OrderStatusState | undefined, event: ErpEventOf<'SalesOrderStatusChanged'>): OrderStatusState {
  const { data } = event;
  return compact({
    clientId: event.clientId,
    salesOrderNumber: event.salesOrderNumber,
    sequence: event.sequence,
    purchaseOrderNumber: data.purchaseOrderNumber,
    statusId: data.statusId,
    open: isOpen(data.statusId),
    expectedShipDate: optionalDate(data.expectedShipDate),
    expectedDeliveryDate: optionalDate(data.expectedDeliveryDate),
    responseRequired: data.responseRequired,
    validTimestamp: new Date(event.occurredAt),
    statusSequence: event.sequence,
    // A hold keeps the status the order had got to.
    progressStatusId: holdCategory(data.statusId) ? state?.progressStatusId : data.statusId,
    statusV2: data.statusV2,
    expectedShipDay: writtenDay(data.expectedShipDate),
    expectedDeliveryDay: writtenDay(data.expectedDeliveryDate),
    additionalExplanation: data.additionalExplanation,
    qualityProofURL: data.qualityProofURL,
    ...detailsOf(state),
    issues: withHoldIssue(state?.issues, event),
    lastOccurredAt: new Date(event.occurredAt),
  });
}

/**
 * The state after an order-details event (contract v2): its sequence and time, and `changes`. Such
 * an event may come before any status: the state then holds no status field, and no purchase
 * order number to be found by until a status brings one.
 */
function withDetails(state: OrderStatusState | undefined, event: ErpEvent, changes: Partial<OrderStatusState>): OrderStatusState {
  const current = state ?? { clientId: event.clientId, salesOrderNumber: event.salesOrderNumber, sequence: 0 };
  // A state folded before 2.0.0 lacks statusSequence (its sequence was its status's): named before
  // the sequence moves on, so that no one takes this event for a status.
  const statusSequence = statusSequenceOf(current);
  return {
    ...current,
    ...changes,
    ...(statusSequence === undefined ? {} : { statusSequence }),
    sequence: event.sequence,
    lastOccurredAt: new Date(event.occurredAt),
  };
}

const onIssueRecorded = (state: OrderStatusState | undefined, event: ErpEventOf<'IssueRecorded'>): OrderStatusState =>
  withDetails(state, event, { issues: withErpIssue(state?.issues, event) });

/** Replaces all lines, in the order the event gives them. */
const onLinesRecorded = (state: OrderStatusState | undefined, event: ErpEventOf<'SalesOrderLinesRecorded'>): OrderStatusState =>
  withDetails(state, event, { lines: toLines(event) });

/** Replaces all contacts, in the order the event gives them. */
const onContactsRecorded = (state: OrderStatusState | undefined, event: ErpEventOf<'OrderContactsRecorded'>): OrderStatusState =>
  withDetails(state, event, { contacts: toContacts(event) });

/**
 * The order status read model of one sales order after `event`. Returns `state` itself (same
 * reference) when nothing changes: a duplicate, a replay, or an event about shipments. Throws
 * EventRejectedError for an event that cannot apply (see erp-issues.ts, order-records.ts).
 */
export function evolveOrderStatus(state: OrderStatusState | undefined, event: ErpEvent): OrderStatusState | undefined {
  if (alreadyApplied(state, event)) return state;
  switch (event.type) {
    case 'SalesOrderStatusChanged':
      return onStatusChanged(state, event);
    case 'IssueRecorded':
      return onIssueRecorded(state, event);
    case 'SalesOrderLinesRecorded':
      return onLinesRecorded(state, event);
    case 'OrderContactsRecorded':
      return onContactsRecorded(state, event);
    case 'ShipmentLocationRecorded':
    case 'PackageShipped':
    case 'PackageVoided':
    case 'ShipmentCompleted':
      return state;
    default:
      return unhandledEvent(event);
  }
}
