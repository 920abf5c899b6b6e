// `ossn pusher` wired to MongoDB and the receivers: the read models through the active version
// `ossn replay` records (as the query service reads them), the subscriptions, their cursors and
// deliveries, and the operators' port.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { PusherConfig } from '../config/config.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { MongoPushCursors, pushCursorsCollection } from '../adapters/mongodb/push-cursors.js';
import { MongoPushDeliveries } from '../adapters/mongodb/push-deliveries.js';
import { forgetPushSubscription } from '../adapters/mongodb/forget-push-subscription.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { StoreConnection } from '../adapters/mongodb/store-connection.js';
import { SwitchingLookups } from '../adapters/mongodb/switching-lookups.js';
import { storeProbes } from '../adapters/mongodb/store-probes.js';
import { sendNotification } from '../adapters/receiver/send-notification.js';
import { untilAnswered } from '../plumbing/lifecycle/until-answered.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { createPusherMetrics, type PusherMetrics } from '../plumbing/metrics/pusher-metrics.js';
import { startOpsServer } from '../plumbing/ops-port/ops-server.js';
import { Pusher } from './pusher.js';
import { pushLagMs } from './push-targets.js';

export interface RunningPusher {
  pusher: Pusher;
  opsUrl: string;
  close(): Promise<void>;
}

/** How often the per-subscription gauges are read from the store. */
const GAUGES_EVERY_MS = 5_000;

/** This process's name in the leases: host, pid and a random part (a restarted pid is another pusher). */
const ownerName = () => `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;

export async function startPusher(config: PusherConfig, logger: Logger, metrics: PusherMetrics = createPusherMetrics()): Promise<RunningPusher> {
  const store = new StoreConnection(config.store.mongodbUri, 'ossn-pusher', logger, { deadlineMs: config.storeTimeoutMs });
  const db = store.client.db(config.store.database);
  const whenConnected = <T>(operation: (signal?: AbortSignal) => Promise<T>, signal?: AbortSignal) => store.whenConnected(operation, signal);
  const subscriptions = new MongoPushSubscriptions(pushSubscriptionsCollection(db));
  const cursors = new MongoPushCursors(pushCursorsCollection(db));
  const deliveries = MongoPushDeliveries.of(db);
  const credentials = new CredentialStore(credentialsCollection(db));
  const switching = new SwitchingLookups(db, {
    fallbackVersion: config.store.readModelVersion,
    onSwitch: (version) => logger.info({ readModelVersion: version }, 'pushing from read-model version'),
    onRefreshError: (error) => logger.warn({ err: error }, 'reading the active read-model version failed; pushing from the last one'),
  });
  const stopFollowing = new AbortController();
  const following = store.connected
    .then(() => untilAnswered('the active read-model version', () => switching.start(), logger, { signal: stopFollowing.signal }))
    .then(() => untilAnswered('the push indexes', () => deliveries.ensureIndexes(), logger, { signal: stopFollowing.signal }))
    .catch(() => undefined);

  const pusher = new Pusher({
    ports: {
      subscriptions: { listEnabled: () => whenConnected(() => subscriptions.listEnabled()), find: (id) => whenConnected(() => subscriptions.find(id)) },
      forget: (id) => whenConnected(() => forgetPushSubscription(db, id)),
      credentials: {
        findMany: (ids) => whenConnected(() => credentials.findMany(ids)),
      },
      cursors: {
        acquire: (ids, owner, ttlMs, signal) => whenConnected(() => cursors.acquireMany(ids, owner, ttlMs), signal),
        renew: (id, owner, ttlMs, signal) => whenConnected(() => cursors.renew(id, owner, ttlMs), signal),
        release: (id, owner) => whenConnected(() => cursors.release(id, owner)),
        advance: (id, owner, cursor, signal) => whenConnected(() => cursors.advance(id, owner, cursor), signal),
      },
      deliveries: {
        recordNews: (id, clientId, numbers, seenAt, signal) => whenConnected(() => deliveries.recordNews(id, clientId, numbers, seenAt), signal),
        dueAndNext: (id, now, limit, signal) => whenConnected((cancel) => deliveries.dueAndNext(id, now, limit, cancel), signal),
        postpone: (id, until, signal) => whenConnected(() => deliveries.postpone(id, until), signal),
        attempted: (delivery, attempt, step) => whenConnected(() => deliveries.attempted(delivery, attempt, step)),
        unchanged: (delivery, at) => whenConnected(() => deliveries.unchanged(delivery, at)),
      },
      lookups: {
        shipmentNotificationV21Batches: (clientIds, query, signal) =>
          store.whenConnectedInCappedBatches((cancel) => switching.shipmentNotificationV21Batches(clientIds, query, cancel), signal),
      },
      send: sendNotification,
    },
    settings: {
      owner: ownerName(),
      key: config.secretKey,
      pollIntervalMs: config.pollIntervalMs,
      leaseTtlMs: config.leaseTtlMs,
      sendTimeoutMs: config.sendTimeoutMs,
      // A refusal waits 30 times longer than a hiccup (delivery-policy.ts: 60 s to 2 s by default).
      policy: { maxAgeMs: config.maxAgeMs, baseMs: config.retryBaseMs, refusedBaseMs: config.retryBaseMs * 30 },
      deliveriesPerRound: 100,
      requestsPerReceiver: config.requestsPerReceiver,
    },
    circuit: { coolDownMs: config.circuitCoolDownMs },
    logger,
    metrics,
  });

  const readGauges = async () => {
    // Only the waiting deliveries, by their index: the settled ones (kept 30 days) are ossn status's
    // to count (docs/operations.md, Sending: ossn pusher).
    const [all, summaries, stands] = await Promise.all([
      whenConnected(() => subscriptions.list()),
      whenConnected((signal) => deliveries.waiting(signal)),
      whenConnected((signal) => cursors.list(signal)),
    ]);
    const now = new Date();
    metrics.pending.reset();
    metrics.parked.reset();
    metrics.lag.reset();
    for (const subscription of all.filter((s) => s.enabled)) {
      const summary = summaries.find((s) => s.subscriptionId === subscription.id);
      const cursor = stands.find((c) => c._id === subscription.id)?.cursor;
      const labels = { subscription: subscription.id };
      metrics.pending.set(labels, summary?.pending ?? 0);
      metrics.parked.set(labels, summary?.parked ?? 0);
      metrics.lag.set(labels, pushLagMs(now, summary?.oldestWaitingNews, cursor, subscription.cursorStart) / 1000);
    }
  };
  const gauges = setInterval(() => void readGauges().catch((error: unknown) => logger.debug({ err: error }, 'reading the push gauges failed')), GAUGES_EVERY_MS);
  gauges.unref();

  const closeAll = async () => {
    clearInterval(gauges);
    stopFollowing.abort();
    await pusher.stop();
    switching.stop();
    await store.close();
  };
  const ops = await startOpsServer({
    host: config.metricsHost,
    port: config.metricsPort,
    variables: { host: 'OSSN_PUSHER_METRICS_HOST', port: 'OSSN_PUSHER_METRICS_PORT' },
    registry: metrics.registry,
    logger,
    ...storeProbes(store, db, switching),
  }).catch(async (error: unknown) => {
    await closeAll();
    throw error;
  });
  void following.then(() => {
    if (!stopFollowing.signal.aborted) pusher.start();
  });
  return {
    pusher,
    opsUrl: ops.url,
    close: async () => {
      await ops.close();
      await closeAll();
    },
  };
}
