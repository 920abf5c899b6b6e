// What the protocol layers (SOAP, JSON) need from the rest of the query service. The MongoDB
// implementations live beside the store; protocol tests may pass in-memory ones.
import type { OrderStatusView, ShipmentNotificationView } from './views.js';

export type Scope = 'order_status' | 'osn';

export interface Credential {
  id: string;
  scopes: Scope[];
  clientIds: string[];
}

export interface Authenticator {
  /**
   * The credential when id and password match an active one; undefined otherwise (never says which
   * part was wrong). `beforeCheck` runs (and may throw) just before the password is checked against the store, not
   * for a pair verified moments ago: the failed-login limit reserves its count there.
   */
  verify(id: string, password: string, beforeCheck?: () => Promise<void>): Promise<Credential | undefined>;
}

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

export interface OrderLookups {
  orderStatus(clientIds: string[], query: StatusQuery): Promise<OrderStatusView[]>;
  shipmentNotifications(clientIds: string[], query: ShipmentQuery): Promise<ShipmentNotificationView[]>;
}
