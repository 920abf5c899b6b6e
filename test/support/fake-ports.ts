// In-memory stand-ins for the query service's ports (no MongoDB involved): lookups that answer what a
// test sets, an authenticator over fixed accounts.
import { cappedInOneBatch, inOneBatch, type OrderLookups, type OrderLookupsV2, type OrderStatusV2Query, type ShipmentQuery, type StatusQuery } from '../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../contracts/lookup-answers.js';
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import type { Authenticator, Credential, LoginGuard } from '../../services/domain/credentials/credential.js';

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

  /** The notifications set, in one batch. */
  async shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    this.shipmentCalls.push({ clientIds, query });
    if (this.failure) throw this.failure;
    return inOneBatch(Promise.resolve(this.notifications));
  }
}

/**
 * The 2.0.0 lookups over data a test sets, keyed by client: each answers only the asking
 * credential's clients' data, as the store does, so isolation shows through the fakes too.
 * poSearch/soSearch and queryType 1/2 filter by the reference; other queryTypes answer all.
 * Each lookup respects its abort signal as the store does (an aborted lookup rejects with the
 * signal's reason); with `hold` set it answers only once released, so requests stay in flight.
 */
export class FakeLookupsV2 implements OrderLookupsV2 {
  statuses: Array<{ clientId: string; order: OrderStatusV2View }> = [];
  issueRecords: Array<{ clientId: string; issue: IssueView }> = [];
  notifications: Array<{ clientId: string; notification: ShipmentNotificationV2View }> = [];
  /** Set to answer every list with `more` (the cap). */
  more = false;
  failure: Error | undefined;
  readonly statusCalls: Array<{ clientIds: string[]; query: OrderStatusV2Query }> = [];
  readonly issueCalls: Array<{ clientIds: string[]; issueId: string }> = [];
  /** 2.1.0's lookup (shipmentNotificationV21Batches) says so with `v21`. */
  readonly shipmentCalls: Array<{ clientIds: string[]; query: ShipmentQuery; v21?: true }> = [];
  /** Set to hold every lookup until releaseAll() or until its signal aborts. */
  hold = false;
  /** The signal of each lookup started, in order. */
  readonly signals: AbortSignal[] = [];
  private readonly waiting = new Set<() => void>();

  /** Lookups held now (neither released nor aborted). */
  get held(): number {
    return this.waiting.size;
  }

  releaseAll(): void {
    const released = [...this.waiting];
    this.waiting.clear();
    released.forEach((release) => release());
  }

  /** Before a lookup answers: refused once its signal aborts, held while `hold` is set. */
  private async start(signal: AbortSignal | undefined): Promise<void> {
    if (signal) this.signals.push(signal);
    signal?.throwIfAborted();
    if (this.hold) {
      await new Promise<void>((resolve, reject) => {
        const aborted = () => {
          this.waiting.delete(release);
          reject(signal?.reason);
        };
        const release = () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        };
        this.waiting.add(release);
        signal?.addEventListener('abort', aborted, { once: true });
      });
    }
    if (this.failure) throw this.failure;
  }

  async orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal): Promise<CappedAnswer<OrderStatusV2View>> {
    this.statusCalls.push({ clientIds, query });
    await this.start(signal);
    const orders = this.statuses
      .filter((s) => clientIds.includes(s.clientId))
      .map((s) => s.order)
      .filter((o) => {
        if (query.queryType === 'poSearch') return o.purchaseOrderNumber === query.referenceNumber;
        if (query.queryType === 'soSearch') return o.details.some((d) => d.salesOrderNumber === query.referenceNumber);
        return true;
      });
    return { orders, more: this.more };
  }

  async issues(clientIds: string[], issueId: string, signal?: AbortSignal): Promise<IssueView[]> {
    this.issueCalls.push({ clientIds, issueId });
    await this.start(signal);
    return this.issueRecords.filter((r) => clientIds.includes(r.clientId) && r.issue.issueId === issueId).map((r) => r.issue);
  }

  async shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    this.shipmentCalls.push({ clientIds, query });
    await this.start(signal);
    const orders = this.notifications
      .filter((n) => clientIds.includes(n.clientId))
      .map((n) => n.notification)
      .filter((n) => {
        if (query.queryType === 1) return n.purchaseOrderNumber === query.referenceNumber;
        if (query.queryType === 2) return n.salesOrders.some((s) => s.salesOrderNumber === query.referenceNumber);
        return true;
      });
    return cappedInOneBatch({ orders, more: this.more });
  }

  /** 2.1.0's: the notifications given, chosen as 2.0.0's (the calls recorded with them). */
  async shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    const answer = await this.shipmentNotificationV2Batches(clientIds, query, signal);
    const call = this.shipmentCalls.at(-1);
    if (call) call.v21 = true;
    return answer;
  }
}

export class FakeAuthenticator implements Authenticator {
  readonly calls: Array<{ id: string; password: string }> = [];
  /** Thrown by every check while set (the password checks at their bound, the store down). */
  failure: Error | undefined;
  constructor(private readonly accounts: Record<string, { password: string; credential: Credential }>) {}

  async verify(id: string, password: string, guard?: LoginGuard): Promise<Credential | undefined> {
    if (this.failure) throw this.failure;
    await guard?.refuseLocked(id);
    const giveBack = await guard?.reserve(id);
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
