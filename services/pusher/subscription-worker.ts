// One subscription, worked while this pusher holds its lease (docs/design/osn-2.1.0.md §2): a
// poller of 2.1.0 queryType 3 from the subscription's cursor, run on the partner's behalf, whose
// news becomes pending deliveries before the cursor moves past it; then each due delivery sends
// its purchase order's latest picture. One worker per subscription and one round at a time, so a
// purchase order has at most one delivery in flight; news recorded while one is in flight keeps
// it pending, and the next round sends the newer picture.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import { readWhole, type OrderLookupsV2 } from '../../contracts/lookups.js';
import type { HeldLease } from '../adapters/mongodb/push-cursors.js';
import type { AttemptRecord, AttemptStep, PushDeliveryDocument } from '../adapters/mongodb/push-deliveries.js';
import type { SendRequest, SendResult } from '../adapters/receiver/send-notification.js';
import type { SecretKey } from '../config/secret-key.js';
import { judgeReceiverUrl } from '../domain/push/receiver-url.js';
import type { PushSubscription } from '../domain/push/subscription.js';
import type { Logger } from '../plumbing/logging/logger.js';
import type { PusherMetrics } from '../plumbing/metrics/pusher-metrics.js';
import type { DeliveryOutcome } from './delivery-outcome.js';
import { nextStep, type DeliveryPolicyOptions } from './delivery-policy.js';
import { latestPicture, scrub, sendJudged, subscriptionRequest, type SubscriptionRequest } from './push-request.js';
import { clientsToPush, type CredentialLinks } from './push-targets.js';
import type { ReceiverCircuit } from './receiver-circuit.js';
import { receiverKey, type ReceiverSlots } from './receiver-slots.js';

/**
 * What a pusher reads and writes, behind the adapters (services/adapters/mongodb/push-cursors.ts,
 * push-deliveries.ts; the receiver's send-notification.ts). `signal` abandons the operation (a stop).
 */
export interface PusherPorts {
  /** Credentials by id, in one read; an id absent is gone. */
  credentials: { findMany(ids: readonly string[]): Promise<Map<string, CredentialLinks>> };
  cursors: {
    /** Takes the free or lapsed leases among these, at once; those taken, by subscription id. */
    acquire(subscriptionIds: readonly string[], owner: string, ttlMs: number, signal?: AbortSignal): Promise<Map<string, HeldLease>>;
    renew(subscriptionId: string, owner: string, ttlMs: number, signal?: AbortSignal): Promise<boolean>;
    release(subscriptionId: string, owner: string): Promise<void>;
    advance(subscriptionId: string, owner: string, cursor: Date, signal?: AbortSignal): Promise<boolean>;
  };
  deliveries: {
    recordNews(subscriptionId: string, clientId: string, purchaseOrderNumbers: readonly string[], seenAt: Date, signal?: AbortSignal): Promise<void>;
    /** The due deliveries, and when the next of the others falls due (one read). */
    dueAndNext(subscriptionId: string, now: Date, limit: number, signal?: AbortSignal): Promise<{ due: PushDeliveryDocument[]; nextDueAt?: Date }>;
    postpone(id: string, until: Date, signal?: AbortSignal): Promise<void>;
    attempted(delivery: PushDeliveryDocument, attempt: AttemptRecord, step: AttemptStep): Promise<void>;
    unchanged(delivery: PushDeliveryDocument, at: Date): Promise<void>;
  };
  lookups: Pick<OrderLookupsV2, 'shipmentNotificationV21Batches'>;
  send(request: SendRequest): Promise<SendResult>;
}

export interface PusherSettings {
  /** This pusher's name in the leases. */
  owner: string;
  key: SecretKey;
  pollIntervalMs: number;
  leaseTtlMs: number;
  sendTimeoutMs: number;
  maxAnswerBytes?: number;
  policy: Partial<DeliveryPolicyOptions>;
  /** Deliveries read per round; the round sends them, at most `requestsPerReceiver` at once. */
  deliveriesPerRound: number;
  requestsPerReceiver: number;
}

/** What every worker of one pusher shares: the credentials read, the receivers' slots and circuits, the log and the metrics. */
export interface PusherShared {
  ports: PusherPorts;
  settings: PusherSettings;
  /** The credential as read at most a poll interval ago (credential-cache.ts); undefined when it is gone. */
  credential(id: string, signal?: AbortSignal): Promise<CredentialLinks | undefined>;
  slots: ReceiverSlots;
  circuit(receiver: string): ReceiverCircuit;
  logger: Logger;
  metrics?: PusherMetrics | undefined;
}

/** Rounds are at least this far apart, whatever falls due: a delivery left due (its lease nearly out) is not read in a loop. */
const MIN_PAUSE_MS = 50;
/** A send needs at least this much of the lease left; less, and it is left to the lease's next holder. */
const MIN_SEND_MS = 1_000;
/** Lease time kept in hand past a send's deadline: the answer's judging and recording. */
const LEASE_MARGIN_MS = 2_000;

/** What tells two pictures of a purchase order apart: a digest of everything a notification shows of it. */
export const pictureDigest = (view: ShipmentNotificationV2View) => createHash('sha256').update(JSON.stringify(view)).digest('base64url');

const isAbort = (error: unknown, signal: AbortSignal) => signal.aborted && (error === signal.reason || (error instanceof Error && error.name === 'AbortError'));

export class SubscriptionWorker {
  private readonly stopping = new AbortController();
  private cursor: Date;
  private leaseValidUntil: number;
  private clients: string[] = [];
  private renewing = false;
  /** When the next delivery falls due, as this round read and left them (ms); undefined: none known. */
  private nextDueAt: number | undefined;
  private done: Promise<void> = Promise.resolve();
  /** Ends the pause between rounds early (stop). */
  private readonly pauses = new AbortController();

  constructor(
    readonly subscription: PushSubscription,
    lease: { cursor: Date | undefined; takenAt: number },
    private readonly shared: PusherShared,
  ) {
    this.cursor = lease.cursor ?? subscription.cursorStart;
    this.leaseValidUntil = lease.takenAt + shared.settings.leaseTtlMs;
  }

  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Whether the worker still runs (it ends by itself when its lease is lost). */
  get running(): boolean {
    return !this.stopping.signal.aborted;
  }

  start(): void {
    this.done = this.run();
  }

  /** Stops after what is in flight (a send is cut off), and lets the lease go. */
  async stop(): Promise<void> {
    this.end('stopped');
    await this.done;
    await this.shared.ports.cursors.release(this.subscription.id, this.shared.settings.owner).catch((error: unknown) => {
      this.shared.logger.warn({ err: error, subscriptionId: this.subscription.id }, 'letting the push lease go failed: it lapses by itself');
    });
  }

  private end(reason: string): void {
    if (!this.stopping.signal.aborted) this.stopping.abort(new Error(`push worker ${reason}`));
    this.pauses.abort();
  }

  private get log() {
    return this.shared.logger;
  }

  private async run(): Promise<void> {
    const { leaseTtlMs, pollIntervalMs } = this.shared.settings;
    const renewal = setInterval(() => void this.renew(), Math.max(250, Math.floor(leaseTtlMs / 3)));
    try {
      while (this.running) {
        try {
          await this.poll();
          await this.deliverDue();
        } catch (error) {
          if (isAbort(error, this.signal)) break;
          this.log.warn({ err: error, subscriptionId: this.subscription.id }, 'push round failed; trying again after the poll interval');
        }
        await this.pause(pollIntervalMs);
      }
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Waits until the next poll, or sooner when a delivery falls due: known from the round's read and
   * what the round left (a retry, a put-off), not read again. Only this worker records news or
   * retries for the subscription while it holds the lease; what an operator redelivers is seen at
   * the next poll.
   */
  private async pause(pollIntervalMs: number): Promise<void> {
    if (!this.running) return;
    let waitMs = pollIntervalMs;
    if (this.nextDueAt !== undefined) waitMs = Math.min(waitMs, Math.max(MIN_PAUSE_MS, this.nextDueAt - Date.now()));
    this.nextDueAt = undefined;
    await sleep(waitMs, undefined, { signal: this.pauses.signal }).catch(() => undefined);
  }

  /** A delivery of this round stays pending, due at `at`. */
  private dueAgain(at: Date | number): void {
    const ms = typeof at === 'number' ? at : at.getTime();
    this.nextDueAt = this.nextDueAt === undefined ? ms : Math.min(this.nextDueAt, ms);
  }

  private async renew(): Promise<void> {
    if (this.renewing || !this.running) return;
    this.renewing = true;
    const { owner, leaseTtlMs } = this.shared.settings;
    const startedAt = Date.now();
    try {
      if (await this.shared.ports.cursors.renew(this.subscription.id, owner, leaseTtlMs, this.signal)) this.leaseValidUntil = startedAt + leaseTtlMs;
      else {
        this.log.warn({ subscriptionId: this.subscription.id }, 'push lease taken by another pusher; leaving the subscription to it');
        this.end('lost its lease');
      }
    } catch (error) {
      if (!isAbort(error, this.signal)) this.log.warn({ err: error, subscriptionId: this.subscription.id }, 'renewing the push lease failed; trying again');
    } finally {
      this.renewing = false;
    }
    if (Date.now() >= this.leaseValidUntil) this.end('let its lease lapse');
  }

  /** Records the news since the cursor as pending deliveries, then moves the cursor to this poll's start. */
  private async poll(): Promise<void> {
    const { ports, settings } = this.shared;
    const startedAt = new Date();
    // Read for every subscription at once, at most a poll interval ago: a credential disabled,
    // unlinked or removed stops being pushed for within about one poll interval.
    const credential = await this.shared.credential(this.subscription.credentialId, this.signal);
    this.clients = clientsToPush(this.subscription, credential);
    for (const clientId of this.clients) {
      const answer = await readWhole(await ports.lookups.shipmentNotificationV21Batches([clientId], { queryType: 3, shipmentDateTimeStamp: this.cursor }, this.signal));
      if (answer.more) {
        this.shared.metrics?.fullAnswers.inc();
        this.log.warn({ subscriptionId: this.subscription.id, clientId }, 'push poll answer full (5,000 purchase orders): news beyond it is sent when it changes again');
      }
      await ports.deliveries.recordNews(this.subscription.id, clientId, answer.orders.map((order) => order.purchaseOrderNumber), startedAt, this.signal);
    }
    if (!(await ports.cursors.advance(this.subscription.id, settings.owner, startedAt, this.signal))) {
      this.end('lost its lease');
      return;
    }
    this.cursor = startedAt;
  }

  private async deliverDue(): Promise<void> {
    if (!this.running) return;
    const { ports, settings } = this.shared;
    const { due, nextDueAt } = await ports.deliveries.dueAndNext(this.subscription.id, new Date(), settings.deliveriesPerRound, this.signal);
    if (nextDueAt) this.dueAgain(nextDueAt);
    let next = 0;
    // Every lane ends before the round does, whatever one delivery meets: a delivery still in
    // flight when the next round reads the due ones would be sent twice at once.
    const lane = async () => {
      while (this.running && next < due.length) {
        const delivery = due[next++] as PushDeliveryDocument;
        try {
          await this.deliver(delivery);
        } catch (error) {
          if (isAbort(error, this.signal)) return;
          this.log.warn({ err: error, subscriptionId: this.subscription.id, purchaseOrderNumber: delivery.purchaseOrderNumber }, 'push delivery failed before an answer; trying again after the poll interval');
          // Put off, not due at once: a store that fails every read would otherwise be asked in a loop.
          await ports.deliveries.postpone(delivery._id, new Date(Date.now() + settings.pollIntervalMs)).catch(() => undefined);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(settings.requestsPerReceiver, due.length) }, lane));
  }

  /** Sends the purchase order's latest picture once, and records what came of it. */
  private async deliver(delivery: PushDeliveryDocument): Promise<void> {
    const { ports, settings, metrics } = this.shared;
    const subscription = this.subscription;
    const at = new Date();
    const started = performance.now();
    const record = async (attempt: Omit<AttemptRecord, 'at' | 'news' | 'durationMs'>, step: AttemptStep) => {
      const full: AttemptRecord = { ...attempt, at, news: delivery.news, durationMs: Math.round(performance.now() - started) };
      // Not bound to the stop: an answer received is recorded (the store's own deadline bounds it).
      await ports.deliveries.attempted(delivery, full, step);
      metrics?.attempts.inc({ outcome: attempt.outcome });
      metrics?.attemptDuration.observe(full.durationMs / 1000);
      if ('park' in step) metrics?.parkedTotal.inc();
      const fields = { subscriptionId: subscription.id, clientId: delivery.clientId, purchaseOrderNumber: delivery.purchaseOrderNumber, ...attempt, next: 'done' in step ? step.done : 'retryAt' in step ? step.retryAt : 'parked' };
      if ('park' in step) this.log.warn({ ...fields, parked: step.park }, 'push delivery parked');
      else this.log.debug(fields, 'push delivery attempted');
    };

    if (!this.clients.includes(delivery.clientId)) {
      await record({ outcome: 'nothing-to-send', reason: 'the subscription no longer pushes for this client' }, { done: 'nothing-to-send' });
      return;
    }
    // Read after the news count was (delivery.news): news recorded from here on keeps it pending.
    const view = await latestPicture(ports.lookups, delivery.clientId, delivery.purchaseOrderNumber, this.signal);
    let request: SubscriptionRequest | undefined;
    try {
      request = subscriptionRequest(subscription, view, settings.key, (field) => metrics?.fitted.inc({ field }));
    } catch (error) {
      // The receiver password does not open (another key, or changed in the store).
      await record({ outcome: 'refused', reason: (error as Error).message }, { park: (error as Error).message });
      return;
    }
    if (!request || !view) {
      // 2.1.0's ShipmentArray needs a shipment with a package: a purchase order left with none cannot be told.
      await record({ outcome: 'nothing-to-send', reason: 'the purchase order has no package to show' }, { done: 'nothing-to-send' });
      return;
    }
    // The polls look back over an overlap, so the same news comes more than once: a picture the
    // receiver has acknowledged already is not sent again.
    const digest = pictureDigest(view);
    if (digest === delivery.sentDigest) {
      await ports.deliveries.unchanged(delivery, at);
      metrics?.unchanged.inc();
      return;
    }

    // Judged again by the rule `ossn push add` applied: a subscription stored under an older rule is not sent to.
    const url = judgeReceiverUrl(subscription.url, { allowHttp: subscription.allowHttp === true });
    if ('problem' in url) {
      await record({ outcome: 'refused', reason: url.problem }, { park: url.problem });
      return;
    }
    const receiver = receiverKey(subscription.url);
    const circuit = this.shared.circuit(receiver);
    const admission = circuit.admit();
    if (!admission.send) {
      await ports.deliveries.postpone(delivery._id, admission.notBefore, this.signal);
      this.dueAgain(admission.notBefore);
      return;
    }
    const timeoutMs = Math.min(settings.sendTimeoutMs, this.leaseValidUntil - Date.now() - LEASE_MARGIN_MS);
    if (timeoutMs < MIN_SEND_MS) {
      if (admission.probe) circuit.record('transient');
      this.dueAgain(Date.now()); // left due
      return;
    }
    let release: () => void;
    try {
      release = await this.shared.slots.enter(receiver, this.signal);
    } catch (error) {
      if (admission.probe) circuit.record('transient');
      if (isAbort(error, this.signal)) throw error;
      this.dueAgain(Date.now());
      return; // no turn at the receiver within the wait: the next round tries again
    }
    let outcome: DeliveryOutcome;
    metrics?.inFlight.inc();
    try {
      this.log.trace({ subscriptionId: subscription.id, url: subscription.url, purchaseOrderNumber: delivery.purchaseOrderNumber, timeoutMs }, 'sending push notification');
      outcome = await sendJudged(ports.send, subscription.url, request, { timeoutMs, maxAnswerBytes: settings.maxAnswerBytes, signal: this.signal });
    } catch (error) {
      if (admission.probe) circuit.record('transient');
      throw error; // stopped mid-send: the delivery stays pending, and is sent again
    } finally {
      metrics?.inFlight.dec();
      release();
    }
    circuit.record(outcome.kind);
    const step = nextStep({ firstAttemptAt: delivery.firstAttemptAt ?? at, earlierAttempts: delivery.attempts, earlierRefusals: delivery.refusals }, outcome, new Date(), settings.policy);
    if ('retryAt' in step) this.dueAgain(step.retryAt);
    await record(
      {
        outcome: outcome.kind,
        ...(outcome.kind !== 'acknowledged' && outcome.status !== undefined ? { status: outcome.status } : {}),
        ...(outcome.kind === 'acknowledged' ? {} : { reason: outcome.reason }),
        ...(outcome.kind === 'acknowledged' && outcome.transactionId !== undefined ? { transactionId: outcome.transactionId } : {}),
      },
      'delivered' in step ? { done: 'delivered', digest } : 'park' in step ? { park: scrub(step.park, request.password) as string } : step,
    );
  }
}
