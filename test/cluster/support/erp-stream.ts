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
  const event = (order: (typeof orders)[number], type: ErpEvent['type'], data: object): ErpEvent => {
    const next = (sequence.get(order) ?? 0) + 1;
    sequence.set(order, next);
    const { clientId, salesOrderNumber } = order;
    return { eventId: randomUUID(), type, schemaVersion: 2, clientId, salesOrderNumber, sequence: next, occurredAt: new Date().toISOString(), data } as ErpEvent;
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

export class ErpStream {
  /** Every event `ossn publish` acknowledged, in the order it was sent. */
  readonly acknowledged: ErpEvent[] = [];
  readonly batches: BatchRecord[] = [];
  private readonly events: ReturnType<typeof salesOrderEvents>;
  private flowing: Promise<void> | undefined;
  private stopping = false;

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
    this.flowing = this.flow();
  }

  /** Stops after the batch in progress has been acknowledged. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.flowing;
    this.flowing = undefined;
  }

  private async flow(): Promise<void> {
    const { random, everyMs, batchSize } = this.options;
    while (!this.stopping) {
      const started = Date.now();
      await this.send(Array.from({ length: random.int(...batchSize) }, () => this.events.next()));
      await sleep(Math.max(0, everyMs - (Date.now() - started)));
    }
  }

  /** One batch, sent again unchanged until acknowledged. */
  private async send(events: ErpEvent[]): Promise<void> {
    const input = events.map((event) => JSON.stringify(event)).join('\n') + '\n';
    const record: BatchRecord = { firstSentAt: Date.now(), acknowledgedAt: 0, failedSends: 0, failures: [], events: events.length };
    for (;;) {
      const run = await runOssn(['publish', '-'], this.options.env, { input, timeoutMs: publishTimeoutMs }).catch(() => undefined);
      if (run?.code === 0) break;
      const last = run && (run.stderr + run.stdout).trim().split('\n').pop();
      record.failures.push(run ? `exit ${run.code}: ${last?.slice(0, 200)}` : `hung: killed after ${publishTimeoutMs / 1000} s`);
      record.failedSends++;
      await sleep(500);
    }
    record.acknowledgedAt = Date.now();
    this.batches.push(record);
    this.acknowledged.push(...events);
  }
}
