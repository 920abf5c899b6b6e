// `ossn start`'s pusher (docs/operations.md, Push subscriptions): `ossn pusher`'s own
// (services/pusher/start-pusher.ts), run in this process once a push subscription exists and a
// secret key is given. While none exists it looks again every few seconds, so a subscription added
// after the start is pushed without a restart. Without a key, a subscription is said to be left
// unpushed, once, and the rest keeps serving. Each look is one store operation within the store
// deadline (STORE_TIMEOUT_MS, docs/operations.md, Configuration): a frozen or absent MongoDB fails
// it then, as it fails a partner's lookup, instead of holding the start or its stop.
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes } from '../../contracts/errors/ossn-error.js';
import type { PusherConfig, StoreConfig } from '../config/config.js';
import { createMongoClient } from '../adapters/mongodb/connect.js';
import { endedBySignal } from '../adapters/mongodb/ended-by-signal.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection, type PushSubscriptionRecord } from '../adapters/mongodb/push-subscriptions.js';
import { DeadlineExceededError, withDeadline } from '../plumbing/lifecycle/deadline.js';
import { PortUnavailableError } from '../plumbing/lifecycle/listen.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { startPusher, type RunningPusher } from '../pusher/start-pusher.js';

export interface PushInStartOptions {
  store: StoreConfig;
  /** STORE_TIMEOUT_MS: the longest one look may take. */
  storeTimeoutMs: number;
  /** The pusher's configuration; undefined when no secret key is given (push cannot run). */
  pusher: PusherConfig | undefined;
  logger: Logger;
  /** Says a line to the operator: `warning` on stderr, else stdout. */
  say(line: string, warning?: boolean): void;
  /** How often it looks for a first subscription; 5 s by default. */
  lookEveryMs?: number;
}

export const noKeyWarning =
  'warning: push subscriptions exist, but neither OSSN_SECRET_KEY nor OSSN_SECRET_KEY_FILE is set: push is not running in ossn start (the key opens the receivers\' passwords); set it and start again, or run ossn pusher with it';

export class PushInStart {
  private running: RunningPusher | undefined;
  private readonly stopping = new AbortController();
  private watching: Promise<void> = Promise.resolve();
  private readonly client: ReturnType<typeof createMongoClient>;
  private readonly subscriptions: MongoPushSubscriptions;

  constructor(private readonly options: PushInStartOptions) {
    this.client = createMongoClient(options.store.mongodbUri, 'ossn-start-push', { deadlineMs: options.storeTimeoutMs });
    this.subscriptions = new MongoPushSubscriptions(pushSubscriptionsCollection(this.client.db(options.store.database)));
  }

  /** The pusher's operators' URL while it runs here. */
  get opsUrl(): string | undefined {
    return this.running?.opsUrl;
  }

  /**
   * Looks once: starts the pusher (or warns) when a subscription exists, a failure to (its port
   * taken) failing the start; else keeps looking in the background.
   */
  async start(): Promise<void> {
    if (!(await this.look())) this.watching = this.watch();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.watching;
    await this.running?.close();
    await this.client.close();
  }

  /** Whether a subscription exists: then the pusher is started, or the warning said. */
  private async look(): Promise<boolean> {
    if ((await this.list()).length === 0) return false;
    if (!this.options.pusher) {
      this.options.say(noKeyWarning, true);
      return true;
    }
    this.running = await startPusher(this.options.pusher, this.options.logger);
    return true;
  }

  /**
   * The subscriptions, read within the store deadline: the read is ended (its cursor closed) at the
   * deadline or at stop, and the look fails then even if the driver is slow to notice. A plain
   * timer, not AbortSignal.timeout (services/adapters/mongodb/store-connection.ts says why).
   */
  private async list(): Promise<PushSubscriptionRecord[]> {
    const ms = this.options.storeTimeoutMs;
    const what = 'looking for push subscriptions';
    const read = new AbortController();
    const onStop = () => read.abort(this.stopping.signal.reason);
    this.stopping.signal.addEventListener('abort', onStop, { once: true });
    const timer = setTimeout(() => read.abort(new DeadlineExceededError(what, ms, ErrorCodes.STORE_TIMEOUT)), ms);
    try {
      return await withDeadline(
        endedBySignal(read.signal, () => this.subscriptions.list(read.signal)),
        ms,
        what,
        ErrorCodes.STORE_TIMEOUT,
      );
    } finally {
      clearTimeout(timer);
      this.stopping.signal.removeEventListener('abort', onStop);
    }
  }

  private async watch(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      await sleep(this.options.lookEveryMs ?? 5_000, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      try {
        if (await this.look()) {
          if (this.running) this.options.say(`a push subscription exists: the pusher runs in this process (metrics and probes at ${this.running.opsUrl})`);
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (!(error instanceof PortUnavailableError)) {
          this.options.logger.warn({ err: error }, 'looking for push subscriptions failed; looking again');
          continue;
        }
        // Said as a port taken at the start would be, but the rest keeps serving.
        this.options.say(`warning: push is not running in ossn start: ${error.message}`, true);
        return;
      }
    }
  }
}
