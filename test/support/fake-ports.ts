// In-memory stand-ins for the query service's ports (no MongoDB involved): lookups that answer what a
// test sets, an authenticator over fixed accounts.
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../contracts/lookup-answers.js';
import type { Authenticator, Credential, ReserveLogin } from '../../services/domain/credentials/credential.js';

export class FakeLookups implements OrderLookups {
  statuses: OrderStatusView[] = [];
  notifications: ShipmentNotificationView[] = [];
  failure: Error | undefined;
  readonly statusCalls: Array<{ clientIds: string[]; query: StatusQuery }> = [];
  readonly shipmentCalls: Array<{ clientIds: string[]; query: ShipmentQuery }> = [];

  async orderStatus(clientIds: string[], query: StatusQuery): Promise<OrderStatusView[]> {
    this.statusCalls.push({ clientIds, query });
    if (this.failure) throw this.failure;
    return this.statuses;
  }

  async shipmentNotifications(clientIds: string[], query: ShipmentQuery): Promise<ShipmentNotificationView[]> {
    this.shipmentCalls.push({ clientIds, query });
    if (this.failure) throw this.failure;
    return this.notifications;
  }
}

export class FakeAuthenticator implements Authenticator {
  readonly calls: Array<{ id: string; password: string }> = [];
  constructor(private readonly accounts: Record<string, { password: string; credential: Credential }>) {}

  async verify(id: string, password: string, reserve?: ReserveLogin): Promise<Credential | undefined> {
    const giveBack = await reserve?.(id);
    this.calls.push({ id, password });
    const account = this.accounts[id];
    const credential = account && account.password === password ? account.credential : undefined;
    if (credential) giveBack?.();
    return credential;
  }
}

export const ACCOUNTS = {
  both: { password: 'secret', credential: { id: 'both', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] } },
  statusOnly: { password: 'secret', credential: { id: 'statusOnly', scopes: ['order_status'], clientIds: ['C1'] } },
  osnOnly: { password: 'secret', credential: { id: 'osnOnly', scopes: ['osn'], clientIds: ['C1'] } },
} satisfies Record<string, { password: string; credential: Credential }>;
