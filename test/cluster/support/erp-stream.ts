// The ERP of the failover suite: a steady stream of events of several sales orders per client,
// each batch sent by an `ossn publish -` process of its own, as an ERP's export job would. A batch
// whose process fails is sent again, unchanged, until it is acknowledged (exit code 0): only then
// are its events counted as acknowledged, and the read models must hold every one of them.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ErpEvent, ErpEventOf } from '../../../contracts/erp-events.js';
import { statusIds } from '../../../contracts/status-types.js';
import { generateDemoEvents } from '../../../services/ossn/demo-events/demo-events.js';
import type { Random } from '../../../services/ossn/demo-events/random.js';
import { runOssn } from '../../support/ossn-cli.js';

export interface ErpStreamOptions {
  /** The clients whose sales orders the ERP reports. */
  clientIds: string[];
  salesOrdersPerClient: number;
  /** `ossn publish`'s variables (brokers, topic). */
  env: Record<string, string>;
  random: Random;
  /** A batch starts this long after the previous one started (or right after it was acknowledged, when that took longer). */
  everyMs: number;
  /** Events per batch, at least and at most. */
  batchSize: [number, number];
}

/** How one batch went: when it was first sent, when it was acknowledged, and how many sends failed before. */
export interface BatchRecord {
  firstSentAt: number;
  acknowledgedAt: number;
  failedSends: number;
  /** Why each failed send failed: its exit code and last line, or that it hung and was killed. */
  failures: string[];
  events: number;
}

/**
 * An ERP's patience with one send: `ossn publish` ends by itself within its producer's deadline
 * (sendDeadlineMs, 35 s, in services/adapters/kafka/producer.ts: a little past kafkajs's bounded
 * retries) and the few seconds it takes to start, so a send still running after this has hung; it
 * is killed and the batch sent again, and case (c) fails on it.
 */
export const publishTimeoutMs = 45_000;

/** One location per sales order; statuses, packages (some shipped an hour before they are posted) and completions. */
function salesOrderEvents(options: ErpStreamOptions) {
  const { random } = options;
  const demo = generateDemoEvents({ clients: 1, orders: 20, seed: 7 });
  const location = (demo.find((e) => e.type === 'ShipmentLocationRecorded') as ErpEventOf<'ShipmentLocationRecorded'>).data;
  const pkg = (demo.find((e) => e.type === 'PackageShipped') as ErpEventOf<'PackageShipped'>).data;
  const orders = options.clientIds.flatMap((clientId) => Array.from({ length: options.salesOrdersPerClient }, (_, n) => ({ clientId, salesOrderNumber: salesOrderNumberOf(clientId, n), n })));
  const sequence = new Map<(typeof orders)[number], number>();
  const packages = new Map<(typeof orders)[number], number>();
  const completed = new Set<(typeof orders)[number]>();
  const occurred = new Map<(typeof orders)[number], number>();
  const event = (order: (typeof orders)[number], type: ErpEvent['type'], data: object): ErpEvent => {
    const next = (sequence.get(order) ?? 0) + 1;
    sequence.set(order, next);
    // Strictly later than the order's previous event, even within one batch made in one millisecond:
    // a poller handed an older status then shows a validTimestamp below the one it holds.
    const occurredAt = Math.max(Date.now(), (occurred.get(order) ?? 0) + 1);
    occurred.set(order, occurredAt);
    const { clientId, salesOrderNumber } = order;
    return { eventId: randomUUID(), type, schemaVersion: 2, clientId, salesOrderNumber, sequence: next, occurredAt: new Date(occurredAt).toISOString(), data } as ErpEvent;
  };
  const status = (order: (typeof orders)[number]) =>
    event(order, 'SalesOrderStatusChanged', { purchaseOrderNumber: purchaseOrderOf(order.n), statusId: random.pick(statusIds) });
  const initial = orders.flatMap((order) => [status(order), event(order, 'ShipmentLocationRecorded', { ...location, locationId: 1 })]);
  const next = (): ErpEvent => {
    const order = random.pick(orders);
    const kind = random.int(0, 9);
    if (kind < 5 || completed.has(order)) return status(order);
    if (kind < 9) {
      const packageId = (packages.get(order) ?? 0) + 1;
      packages.set(order, packageId);
      const shipmentDate = new Date(Date.now() - random.int(0, 60) * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return event(order, 'PackageShipped', { ...pkg, locationId: 1, packageId, shipmentDate });
    }
    completed.add(order);
    return event(order, 'ShipmentCompleted', { locationId: 1 });
  };
  return { initial, next };
}

/**
 * A sales order's number: `<clientId>-SO-<n>`, unique across clients, so that an answer that
 * names no client (SOAP's) still tells whose sales order it is.
 */
export const salesOrderNumberOf = (clientId: string, n: number) => `${clientId}-SO-${n}`;

/** The purchase order of sales order `n` of a client: a few sales orders share one. */
export const purchaseOrderOf = (n: number) => `PO-${1 + (n % 5)}`;

/** A large batch asked for (burst()): its size, and who waits for its start and its acknowledgement. */
interface BurstRequest {
  events: number;
  started: (firstSentAt: number) => void;
  acknowledged: (record: BatchRecord) => void;
  failed: (error: Error) => void;
}

export class ErpStream {
  /** Every event `ossn publish` acknowledged, in the order it was sent. */
  readonly acknowledged: ErpEvent[] = [];
  readonly batches: BatchRecord[] = [];
  private readonly events: ReturnType<typeof salesOrderEvents>;
  private flowing: Promise<void> | undefined;
  private stopping = false;
  /** Set once stop() gave up waiting: a batch still failing is not sent again. */
  private abandoned = false;
  private burstRequest: BurstRequest | undefined;

  constructor(private readonly options: ErpStreamOptions) {
    this.events = salesOrderEvents(options);
  }

  /** Sends every sales order's first status and location, and resolves once they are acknowledged. */
  async sendInitial(): Promise<void> {
    await this.send(this.events.initial);
  }

  /** Starts the steady stream (again, after stop()). */
  start(): void {
    if (this.flowing) throw new Error('the ERP stream flows already');
    this.stopping = false;
    this.abandoned = false;
    this.flowing = this.flow();
  }

  /**
   * The next batch of the flowing stream is `events` events of the same sales orders (an export
   * of a backlog), sent like any other. Resolves when its first send starts, with its
   * acknowledgement to come (rejected if the stream stops before it is acknowledged).
   */
  burst(events: number): Promise<{ firstSentAt: number; acknowledged: Promise<BatchRecord> }> {
    if (!this.flowing || this.stopping) return Promise.reject(new Error('a burst needs the ERP stream flowing'));
    if (this.burstRequest) return Promise.reject(new Error('a burst is pending already'));
    return new Promise((resolveStarted, rejectStarted) => {
      let acknowledged!: (record: BatchRecord) => void;
      let failed!: (error: Error) => void;
      const done = new Promise<BatchRecord>((resolve, reject) => {
        acknowledged = resolve;
        failed = reject;
      });
      done.catch(() => undefined); // handled by whoever awaits it; never unhandled
      this.burstRequest = {
        events,
        started: (firstSentAt) => resolveStarted({ firstSentAt, acknowledged: done }),
        acknowledged,
        failed: (error) => {
          rejectStarted(error);
          failed(error);
        },
      };
    });
  }

  /**
   * Stops after the batch in progress has been acknowledged; rejects after `timeoutMs`, leaving
   * that batch unacknowledged (its running `ossn publish` still ends within publishTimeoutMs).
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    const flowing = this.flowing;
    if (!flowing) return;
    const stopped = await Promise.race([flowing.then(() => true), sleep(timeoutMs).then(() => false)]);
    this.flowing = undefined;
    if (!stopped) {
      this.abandoned = true;
      throw new Error(`the ERP stream did not stop within ${timeoutMs} ms: a batch is still unacknowledged`);
    }
  }

  private async flow(): Promise<void> {
    const { random, everyMs, batchSize } = this.options;
    try {
      while (!this.stopping) {
        const started = Date.now();
        const burst = this.burstRequest;
        const events = Array.from({ length: burst?.events ?? random.int(...batchSize) }, () => this.events.next());
        const record = await this.send(events, burst?.started);
        if (burst) {
          this.burstRequest = undefined;
          if (record) burst.acknowledged(record);
          else burst.failed(new Error('the burst was not acknowledged before the ERP stream stopped'));
        }
        await sleep(Math.max(0, everyMs - (Date.now() - started)));
      }
    } finally {
      this.burstRequest?.failed(new Error('the ERP stream stopped before the burst was sent'));
      this.burstRequest = undefined;
    }
  }

  /** One batch, sent again unchanged until acknowledged (or until the stream is abandoned: undefined). */
  private async send(events: ErpEvent[], started?: (firstSentAt: number) => void): Promise<BatchRecord | undefined> {
    const input = events.map((event) => JSON.stringify(event)).join('\n') + '\n';
    const record: BatchRecord = { firstSentAt: Date.now(), acknowledgedAt: 0, failedSends: 0, failures: [], events: events.length };
    started?.(record.firstSentAt);
    for (;;) {
      const run = await runOssn(['publish', '-'], this.options.env, { input, timeoutMs: publishTimeoutMs }).catch(() => undefined);
      if (run?.code === 0) break;
      const last = run && (run.stderr + run.stdout).trim().split('\n').pop();
      record.failures.push(run ? `exit ${run.code}: ${last?.slice(0, 200)}` : `hung: killed after ${publishTimeoutMs / 1000} s`);
      record.failedSends++;
      if (this.abandoned) return undefined;
      await sleep(500);
    }
    record.acknowledgedAt = Date.now();
    this.batches.push(record);
    this.acknowledged.push(...events);
    return record;
  }
}
