// What the protocol layers (SOAP, JSON) need from the rest of the query service. The MongoDB
// implementations live beside the store; protocol tests may pass in-memory ones.
import type { OrderStatusView, ShipmentNotificationView } from './lookup-answers.js';

export type Scope = 'order_status' | 'osn';

export interface Credential {
  id: string;
  scopes: Scope[];
  clientIds: string[];
}

/** Gives a failed-login reservation back; never throws. */
export type GiveBackLogin = () => void;

/**
 * Reserves one failed login for a password check of `id` (throws RateLimitedError when none is
 * left); the authenticator gives it back only when that check found the credential.
 */
export type ReserveLogin = (id: string) => Promise<GiveBackLogin>;

export interface Authenticator {
  /**
   * The credential when id and password match an active one; undefined otherwise (never says which
   * part was wrong). `reserve` runs (and may throw) before the password is checked against the
   * store, not for a pair verified moments ago; the reservation is kept unless the check returns a
   * credential, so an aborted, timed-out or failed request stays counted as a guess.
   */
  verify(id: string, password: string, reserve?: ReserveLogin): Promise<Credential | undefined>;
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

/** `signal` aborts the lookup's store work (its client went away, or its answer was given). */
export interface OrderLookups {
  orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]>;
  shipmentNotifications(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<ShipmentNotificationView[]>;
}

/** What a partner request's lookup is bound to (see http/request-work.ts). */
export interface RequestWork {
  /** Aborted when the client goes away or the request is answered: its store work is cancelled then. */
  signal: AbortSignal;
  /** Waits for one of the credential's lookup slots, held until then. */
  admitLookup(credential: Credential): Promise<void>;
}
