import type { Db } from 'mongodb';
import type { OrderLookups, OrderLookupsV2, OrderStatusV2Query, ShipmentQuery, StatusQuery } from '../../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { readActiveVersion } from './active-version.js';
import { readModelCollections } from './documents.js';
import { MongoOrderLookups } from './lookups.js';

export interface SwitchingLookupsOptions {
  /** READ_MODEL_VERSION: the active version until a replay records one. */
  fallbackVersion: number;
  /** How often the active version is read again; 1 s by default. */
  refreshMs?: number;
  onSwitch?(version: number): void;
  onRefreshError?(error: unknown): void;
}

/**
 * The lookups of the active read-model version, following it as `ossn replay` switches: the
 * version is read again every second, so every query service answers from the new one within
 * seconds of the switch, without a restart. Each lookup reads one version from start to end, so
 * no answer mixes two.
 */
export class SwitchingLookups implements OrderLookups, OrderLookupsV2 {
  private current: { version: number; lookups: MongoOrderLookups } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastRead = 0;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly options: SwitchingLookupsOptions,
  ) {}

  /** The version answered from; undefined until it was read once. */
  get version(): number | undefined {
    return this.current?.version;
  }

  /** Whether the active version was read within `ms`: otherwise a switch may have gone unnoticed. */
  readWithin(ms: number): boolean {
    return this.current !== undefined && Date.now() - this.lastRead <= ms;
  }

  /** Reads the active version once (throws when the store does not answer), then keeps following it. */
  async start(): Promise<void> {
    await this.refresh();
    if (this.stopped) return; // stopped while the first read was under way
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.options.onRefreshError?.(error));
    }, this.options.refreshMs ?? 1_000);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    const { version } = await readActiveVersion(this.db, this.options.fallbackVersion);
    this.lastRead = Date.now();
    if (version === this.current?.version) return;
    this.current = { version, lookups: new MongoOrderLookups(readModelCollections(this.db, version)) };
    this.options.onSwitch?.(version);
  }

  orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]> {
    return this.active().orderStatus(clientIds, query, signal);
  }

  shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    return this.active().shipmentNotificationBatches(clientIds, query, signal);
  }

  orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal): Promise<CappedAnswer<OrderStatusV2View>> {
    return this.active().orderStatusV2(clientIds, query, signal);
  }

  issues(clientIds: string[], issueId: string, signal?: AbortSignal): Promise<IssueView[]> {
    return this.active().issues(clientIds, issueId, signal);
  }

  shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return this.active().shipmentNotificationV2Batches(clientIds, query, signal);
  }

  shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    return this.active().shipmentNotificationV21Batches(clientIds, query, signal);
  }

  private active(): MongoOrderLookups {
    if (!this.current) throw new Error('the active read-model version is not known yet');
    return this.current.lookups;
  }
}
