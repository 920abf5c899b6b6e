import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { QueryConfig } from '../config/config.js';
import { CachingAuthenticator } from '../domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { RecordingLastUse } from '../domain/credentials/last-used.js';
import { untilAnswered } from '../plumbing/lifecycle/until-answered.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { createQueryMetrics } from '../plumbing/metrics/query-metrics.js';
import { StoreConnection } from '../adapters/mongodb/store-connection.js';
import { SwitchingLookups } from '../adapters/mongodb/switching-lookups.js';
import { storeProbes } from '../adapters/mongodb/store-probes.js';
import { startOpsServer } from '../plumbing/ops-port/ops-server.js';
import { listenOn } from '../plumbing/lifecycle/listen.js';
import { buildApp } from './app.js';
import type { OrderLookups, OrderLookupsV2 } from '../../contracts/lookups.js';
import type { Authenticator } from '../domain/credentials/credential.js';
import { createRequestLimits } from './rate-limit/index.js';

export interface RunningQueryService {
  app: FastifyInstance;
  /** The partner port. */
  url: string;
  /** The operators' port: /metrics, /healthz, /readyz. */
  opsUrl: string;
  close(): Promise<void>;
}

/** /healthz answers within two seconds, whatever the store does. */

/**
 * Wires the query service to MongoDB and starts listening. The store need not answer yet: until
 * it does (and whenever it stops answering), /healthz answers 503 and partners get their fault or
 * 500 within the store deadline; it serves as soon as the store answers.
 */
export async function startQueryService(config: QueryConfig, logger: Logger): Promise<RunningQueryService> {
  // Every round trip to the store has this deadline, so a frozen store cannot hold requests.
  const store = new StoreConnection(config.store.mongodbUri, 'ossn-query', logger, { deadlineMs: config.storeTimeoutMs });
  const db = store.client.db(config.store.database);
  const stopFollowing = new AbortController();
  const credentials = new CredentialStore(credentialsCollection(db));
  const pushSubscriptions = new MongoPushSubscriptions(pushSubscriptionsCollection(db));
  const cachingAuthenticator = new RecordingLastUse(new CachingAuthenticator(credentials), credentials, logger);
  const authenticator: Authenticator = {
    verify: (id, password, guard) => store.whenConnected(() => cachingAuthenticator.verify(id, password, guard)),
  };
  // With REDIS_URL every instance counts in Redis, so they share one limit per credential.
  const limits = createRequestLimits({
    requestsPerMinute: config.requestsPerMinute,
    windowMs: config.rateLimitWindowMs,
    redisUrl: config.redisUrl,
    logger,
  });
  const metrics = createQueryMetrics({ rateLimitLocal: () => limits.countsLocally() });
  // The active version as `ossn replay` records it (READ_MODEL_VERSION before the first switch),
  // followed once the store answers.
  const switching = new SwitchingLookups(db, {
    fallbackVersion: config.store.readModelVersion,
    onSwitch: (version) => {
      metrics.activeVersion.set(version);
      logger.info({ readModelVersion: version }, 'answering from read-model version');
    },
    onRefreshError: (error) => logger.warn({ err: error }, 'reading the active read-model version failed; answering from the last one'),
  });
  const following = store.connected
    .then(() => untilAnswered('the active read-model version', () => switching.start(), logger, { signal: stopFollowing.signal }))
    .catch(() => undefined); // only a close before the store answered ends it
  const lookups: OrderLookups = {
    orderStatus: (clientIds, query, signal) => store.whenConnected((cancel) => switching.orderStatus(clientIds, query, cancel), signal),
    shipmentNotificationBatches: (clientIds, query, signal) =>
      store.whenConnectedInBatches((cancel) => switching.shipmentNotificationBatches(clientIds, query, cancel), signal),
  };
  const lookupsV2: OrderLookupsV2 = {
    orderStatusV2: (clientIds, query, signal) => store.whenConnected((cancel) => switching.orderStatusV2(clientIds, query, cancel), signal),
    issues: (clientIds, issueId, signal) => store.whenConnected((cancel) => switching.issues(clientIds, issueId, cancel), signal),
    shipmentNotificationV2Batches: (clientIds, query, signal) =>
      store.whenConnectedInCappedBatches((cancel) => switching.shipmentNotificationV2Batches(clientIds, query, cancel), signal),
    shipmentNotificationV21Batches: (clientIds, query, signal) =>
      store.whenConnectedInCappedBatches((cancel) => switching.shipmentNotificationV21Batches(clientIds, query, cancel), signal),
  };
  const app = await buildApp({
    logger,
    publicBaseUrl: config.publicBaseUrl,
    lookups,
    lookupsV2,
    authenticator,
    metrics,
    limits,
    trustedProxyHops: config.trustedProxyHops,
    serverLimits: { requestTimeoutMs: config.requestTimeoutMs, maxConnections: config.maxConnections, maxConnectionsPerAddress: config.maxConnectionsPerAddress },
    lookupsInFlightPerCredential: config.lookupsInFlightPerCredential,
    // A turn that does not come within the store deadline is answered as a store that does not answer.
    lookupWaitMs: config.storeTimeoutMs,
    supplierTimeZone: config.supplierTimeZone,
    pushSubscribed: (credentialId) => store.whenConnected((signal) => pushSubscriptions.hasEnabled(credentialId, signal)),
  });
  const closeService = async () => {
    stopFollowing.abort();
    switching.stop();
    await app.close(); // closes the limits' Redis connections too
    await store.close();
  };
  // A port that cannot be had (taken, not allowed) leaves nothing behind: no other port, no
  // connections to Redis or MongoDB; the error names its variable.
  const ops = await startOpsServer({
    host: config.opsHost,
    port: config.opsPort,
    variables: { host: 'OPS_HOST', port: 'OPS_PORT' },
    registry: metrics.registry,
    logger,
    // Liveness of what answers partners: the store. Redis is not asked: without it the limits
    // count per instance and requests are still served.
    ...storeProbes(store, db, switching),
    // Ready all the same (partners are served), but each instance allows the whole limit.
    readinessDetails: () =>
      limits.countsLocally() ? { rateLimits: config.redisUrl ? 'counted in this instance alone: Redis does not answer' : 'counted in this instance alone: no REDIS_URL' } : undefined,
  }).catch(async (error: unknown) => {
    await closeService();
    throw error;
  });
  const close = async () => {
    await ops.close();
    await closeService();
  };
  // A store that answers at once is connected before the first request; one that does not is
  // waited for in the background while the service already answers (503 and 500 until then).
  await Promise.race([following, sleep(config.storeTimeoutMs, undefined, { ref: false })]);
  const url = await listenOn(app, config.host, config.port, { host: 'HOST', port: 'PORT' }).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { app, url, opsUrl: ops.url, close };
}
