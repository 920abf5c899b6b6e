// The pusher (docs/design/osn-2.1.0.md §2: where it runs): works every enabled subscription whose
// lease it can take, one SubscriptionWorker each, and lets go of the ones disabled, removed or
// taken over. Several pushers share the subscriptions so: a lease that lapses (its pusher killed)
// is taken by another at its next look.
import { setTimeout as sleep } from 'node:timers/promises';
import type { PushSubscriptionStore } from '../domain/push/subscription-store.js';
import type { Logger } from '../plumbing/logging/logger.js';
import type { PusherMetrics } from '../plumbing/metrics/pusher-metrics.js';
import { CredentialCache } from './credential-cache.js';
import { ReceiverCircuit, type CircuitOptions } from './receiver-circuit.js';
import { ReceiverSlots } from './receiver-slots.js';
import { SubscriptionWorker, type PusherPorts, type PusherSettings, type PusherShared } from './subscription-worker.js';

export interface PusherOptions {
  ports: PusherPorts & {
    subscriptions: Pick<PushSubscriptionStore, 'listEnabled' | 'find'>;
    /** Forgets a removed subscription's cursor and deliveries (what `ossn push remove` forgets). */
    forget(subscriptionId: string): Promise<void>;
  };
  settings: PusherSettings;
  circuit?: Partial<CircuitOptions>;
  logger: Logger;
  metrics?: PusherMetrics;
}

export class Pusher {
  private readonly workers = new Map<string, SubscriptionWorker>();
  private readonly circuits = new Map<string, ReceiverCircuit>();
  private readonly credentials: CredentialCache;
  private readonly shared: PusherShared;
  private readonly stopping = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly options: PusherOptions) {
    const { settings, logger, metrics, ports } = options;
    // Kept a poll interval at most: a credential's change is seen by the polls after it.
    this.credentials = new CredentialCache({ maxAgeMs: settings.pollIntervalMs, read: (ids) => ports.credentials.findMany(ids) });
    this.shared = {
      ports,
      settings,
      credential: (id, signal) => this.credentials.find(id, signal),
      slots: new ReceiverSlots(settings.requestsPerReceiver),
      circuit: (receiver) => {
        let circuit = this.circuits.get(receiver);
        if (!circuit) this.circuits.set(receiver, (circuit = new ReceiverCircuit(options.circuit)));
        return circuit;
      },
      logger,
      metrics,
    };
  }

  /** How often it looks for subscriptions to take or let go: often enough that a lapsed lease is taken within a quarter of its time. */
  get lookEveryMs(): number {
    return Math.max(this.options.settings.pollIntervalMs, Math.floor(this.options.settings.leaseTtlMs / 4));
  }

  /** The subscriptions this pusher works now. */
  get worked(): string[] {
    return [...this.workers.keys()];
  }

  start(): void {
    this.loop = this.run();
  }

  /** Stops every worker (sends in flight are cut off and come again) and lets their leases go. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    await Promise.all([...this.workers.values()].map((worker) => worker.stop()));
    this.workers.clear();
    this.options.metrics?.leasesHeld.set(0);
  }

  private async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await this.look();
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        this.options.logger.warn({ err: error }, 'reading the push subscriptions failed; trying again');
      }
      await sleep(this.lookEveryMs, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  /** Takes the leases of enabled subscriptions not worked here, and lets go of the others. */
  async look(): Promise<void> {
    const { ports, settings, logger, metrics } = this.options;
    const enabled = await ports.subscriptions.listEnabled();
    const ids = new Set(enabled.map((subscription) => subscription.id));
    this.credentials.retain(new Set(enabled.map((subscription) => subscription.credentialId)));
    for (const [id, worker] of this.workers) {
      if (ids.has(id) && worker.running) continue;
      this.workers.delete(id);
      await worker.stop();
      logger.info({ subscriptionId: id }, ids.has(id) ? 'push subscription left to another pusher' : 'push subscription no longer enabled: stopped working it');
      // Removed while its last round polled: the news that poll recorded would be left behind.
      if (!ids.has(id) && !(await ports.subscriptions.find(id))) await ports.forget(id);
    }
    // Every free lease at once: taken one at a time, 100 subscriptions waited tens of seconds for
    // their first round.
    const wanted = enabled.filter((subscription) => !this.workers.has(subscription.id));
    if (wanted.length > 0 && !this.stopping.signal.aborted) {
      const takenAt = Date.now();
      const leases = await ports.cursors.acquire(
        wanted.map((subscription) => subscription.id),
        settings.owner,
        settings.leaseTtlMs,
        this.stopping.signal,
      );
      // Started even when stopping meanwhile: stop() then lets their leases go at once.
      for (const subscription of wanted) {
        const lease = leases.get(subscription.id);
        if (!lease) continue;
        const worker = new SubscriptionWorker(subscription, { cursor: lease.cursor, takenAt }, this.shared);
        this.workers.set(subscription.id, worker);
        worker.start();
        logger.info({ subscriptionId: subscription.id, cursor: (lease.cursor ?? subscription.cursorStart).toISOString() }, 'working push subscription');
      }
    }
    metrics?.leasesHeld.set(this.workers.size);
  }
}
