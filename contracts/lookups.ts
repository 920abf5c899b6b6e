// The lookups the query service asks of the read-model store: what the protocol layers (SOAP,
// JSON) query, and what they get (lookup-answers.ts). The MongoDB implementation is in
// services/adapters/mongodb/; protocol tests may pass in-memory ones.
import type { OrderStatusView, ShipmentNotificationView } from './lookup-answers.js';

export interface StatusQuery {
  queryType: number;
  referenceNumber?: string;
  statusTimeStamp?: Date;
}

export interface ShipmentQuery {
  queryType: number;
  referenceNumber?: string;
  shipmentDateTimeStamp?: Date;
}

/** `signal` aborts the lookup's store work (its client went away, or its answer was given). */
export interface OrderLookups {
  orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]>;
  shipmentNotifications(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<ShipmentNotificationView[]>;
}
