// MongoOrderLookups with a stopwatch: each call's duration is kept as `lastMs`, so that a server
// hook can tell, per request, the store's share of the server time from the rest (with one
// request in flight at a time, the latest call is the request's own).
import { performance } from 'node:perf_hooks';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../contracts/lookup-answers.js';

export class TimedLookups implements OrderLookups {
  lastMs = NaN;

  constructor(private readonly inner: OrderLookups) {}

  private async time<T>(work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.lastMs = performance.now() - start;
    }
  }

  orderStatus(clientIds: string[], query: StatusQuery): Promise<OrderStatusView[]> {
    return this.time(() => this.inner.orderStatus(clientIds, query));
  }

  /** Timed to the answer's last batch: the lookup's whole time, sent as it goes. */
  async shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    const start = performance.now();
    const batches = await this.inner.shipmentNotificationBatches(clientIds, query, signal);
    const done = (ms: number) => (this.lastMs = ms);
    return (async function* () {
      try {
        yield* batches;
      } finally {
        done(performance.now() - start);
      }
    })();
  }
}
