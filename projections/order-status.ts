import type { ErpEvent, ErpEventOf } from '../contracts/erp-events.js';
import { isOpen } from '../contracts/status-types.js';
import { compact } from './compact.js';
import { unhandledEvent } from './event-rejected.js';
import { alreadyApplied } from './sequence-guard.js';
import type { OrderStatusState } from './state.js';

const optionalDate = (value: string | undefined): Date | undefined => (value === undefined ? undefined : new Date(value));

/** The event carries the full status state (not a delta), so it replaces the previous one. */
function onStatusChanged(event: ErpEventOf<'SalesOrderStatusChanged'>): OrderStatusState {
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
  });
}

/**
 * The order status read model of one sales order after `event`. Returns `state` itself (same
 * reference) when nothing changes: a duplicate, a replay, or an event about shipments.
 */
export function evolveOrderStatus(state: OrderStatusState | undefined, event: ErpEvent): OrderStatusState | undefined {
  if (alreadyApplied(state, event)) return state;
  switch (event.type) {
    case 'SalesOrderStatusChanged':
      return onStatusChanged(event);
    case 'ShipmentLocationRecorded':
    case 'PackageShipped':
    case 'PackageVoided':
    case 'ShipmentCompleted':
      return state;
    default:
      return unhandledEvent(event);
  }
}
