import { defaultTopic } from '../../contracts/transport.js';
import { logLevels, type LogLevel } from '../plumbing/logging/logger.js';
import { EnvReader } from './env.js';
import { readSecretKey, type SecretKey } from './secret-key.js';

export type { LogLevel };

export interface StoreConfig {
  mongodbUri: string;
  database: string;
  /** Read models live in versioned collections so that a rebuild can fill a new version beside the live one. */
  readModelVersion: number;
}

export interface ProjectorConfig {
  logLevel: LogLevel;
  store: StoreConfig;
  kafkaBrokers: string[];
  topic: string;
  topicPartitions: number;
  consumerGroup: string;
  /** Sales orders whose states the projector keeps between batches instead of reading them again. */
  stateCacheSize: number;
  /** The most one fetch brings of a partition (about the largest batch), and of all partitions together, in bytes (the defaults when absent). */
  fetchMaxBytesPerPartition?: number;
  fetchMaxBytes?: number;
  /** While `ossn replay` rebuilds READ_MODEL_VERSION: the live version whose change times are carried over (configForVersion). */
  previousReadModelVersion?: number;
  /** Silence after which the consumer group counts a projector gone and hands its partitions on (30 s when absent). */
  consumerSessionTimeoutMs?: number;
  /** How long the lock of a replay that stopped renewing it (killed) holds off the next one (60 s when absent). */
  replayLockTtlMs?: number;
  /** Where `ossn projector` serves /metrics, /healthz and /readyz; port 0 picks a free one. */
  metricsHost?: string;
  metricsPort?: number;
  /**
   * From the first SIGTERM until the process has exited, whatever the servers do (10 s when
   * absent): a batch still waiting on a server then is abandoned uncommitted, and comes again.
   */
  stopTimeoutMs?: number;
}

export interface QueryConfig {
  logLevel: LogLevel;
  store: StoreConfig;
  host: string;
  port: number;
  publicBaseUrl: string;
  redisUrl?: string;
  requestsPerMinute: number;
  /** The rate limits' window: a minute, shortened only to try them out quickly. */
  rateLimitWindowMs: number;
  /** Reverse proxies in front of the service whose X-Forwarded-For is believed; 0 believes none. */
  trustedProxyHops: number;
  /** The longest a store operation of a request may take before the partner gets a fault or 500. */
  storeTimeoutMs: number;
  /** From a request's first byte until its body is complete; a slower request is cut off. */
  requestTimeoutMs: number;
  /** Connections the partner port holds at once. */
  maxConnections: number;
  /** Connections one address may hold on the partner port (not applied behind trusted proxies). */
  maxConnectionsPerAddress: number;
  /** Lookups one credential may have running in one instance; more wait their turn. */
  lookupsInFlightPerCredential: number;
  /** Where /metrics, /healthz and /readyz are served, apart from the partner port; port 0 picks a free one. */
  opsHost: string;
  opsPort: number;
  /** From the first SIGTERM until `ossn serve` has exited, whatever the servers do. */
  stopTimeoutMs: number;
  /** Where a bare date a 2.1.0 partner sends starts (docs/design/osn-2.1.0.md §1): an IANA name. */
  supplierTimeZone: string;
}

type Env = Record<string, string | undefined>;

/** See ProjectorConfig.stopTimeoutMs. */
export const defaultStopTimeoutMs = 10_000;

/**
 * About 4 kB a sales order: some 200 MB of states kept between batches at most. A sales order's
 * events come over days; a miss reads its states from the store again. In the demo stream (two
 * weeks of 50 clients' orders) some 35,000 sales orders are under way at once: at 1,000,000 events
 * (107,603 sales orders) 20,000 kept made 202,806 reads of stored states, 50,000 none.
 */
export const defaultStateCacheSize = 50_000;

const MiB = 1024 * 1024;
/**
 * A batch folds each sales order's events of the batch into one write of each of its documents:
 * the larger the batch, the fewer writes per event while the projector catches up (at kafkajs's
 * 1 MiB a partition, 0.78 writes an event on the demo stream). See docs/benchmarks.md.
 */
export const defaultFetchMaxBytesPerPartition = 8 * MiB;
/** Room for every partition of the default topic (6) at the default per partition. */
export const defaultFetchMaxBytes = 48 * MiB;

function readStore(r: EnvReader): StoreConfig {
  return {
    mongodbUri: r.mongodbUri('MONGODB_URI'),
    database: r.string('MONGODB_DATABASE', 'ossn'),
    readModelVersion: r.integer('READ_MODEL_VERSION', 1, { min: 1, max: 9999 }),
  };
}

// One reading of each variable that several processes take.
const readLogLevel = (r: EnvReader): LogLevel => r.oneOf('LOG_LEVEL', logLevels, 'info');
// Well inside a container's grace period (30 s by default in Kubernetes and Docker).
const readStopTimeoutMs = (r: EnvReader): number => r.integer('OSSN_STOP_TIMEOUT_MS', defaultStopTimeoutMs, { min: 1_000, max: 600_000 });
const readStoreTimeoutMs = (r: EnvReader): number => r.integer('STORE_TIMEOUT_MS', 5_000, { min: 100, max: 120_000 });
const readTopicPartitions = (r: EnvReader): number => r.integer('OSSN_TOPIC_PARTITIONS', 6, { min: 1, max: 10_000 });

/** The read-model database and the operator's key that seals receivers' passwords. */
function readStoreAndSecretKey(r: EnvReader): { store: StoreConfig; sealingKey(): SecretKey } {
  const store = readStore(r);
  const secretKey = readSecretKey(r);
  // r.done() throws when the key is missing or bad, so after it the key is there.
  return { store, sealingKey: () => secretKey as SecretKey };
}

export function readProjectorConfig(env: Env = process.env): ProjectorConfig {
  const r = new EnvReader(env);
  const store = readStore(r);
  const topic = r.string('OSSN_TOPIC', defaultTopic);
  const config: ProjectorConfig = {
    logLevel: readLogLevel(r),
    store,
    kafkaBrokers: r.brokers('KAFKA_BROKERS'),
    topic,
    topicPartitions: readTopicPartitions(r),
    // The topic in the default: projectors of two topics never share a group by default (a trial's
    // projector would be handed partitions of the live topic, and drop them).
    consumerGroup: r.string('OSSN_CONSUMER_GROUP', `ossn-projector-${topic}-v${store.readModelVersion}`),
    stateCacheSize: r.integer('OSSN_STATE_CACHE_SIZE', defaultStateCacheSize, { min: 0, max: 10_000_000 }),
    fetchMaxBytesPerPartition: r.integer('OSSN_FETCH_MAX_BYTES_PER_PARTITION', defaultFetchMaxBytesPerPartition, { min: 64 * 1024, max: 256 * MiB }),
    fetchMaxBytes: r.integer('OSSN_FETCH_MAX_BYTES', defaultFetchMaxBytes, { min: 64 * 1024, max: 1024 * MiB }),
    // Kafka's brokers accept 6 s to 30 min by default (group.min/max.session.timeout.ms).
    consumerSessionTimeoutMs: r.integer('OSSN_CONSUMER_SESSION_TIMEOUT_MS', 30_000, { min: 6_000, max: 1_800_000 }),
    replayLockTtlMs: r.integer('OSSN_REPLAY_LOCK_TTL_MS', 60_000, { min: 2_000, max: 3_600_000 }),
    metricsHost: r.string('OSSN_METRICS_HOST', '127.0.0.1'),
    metricsPort: r.integer('OSSN_METRICS_PORT', 9464, { min: 0, max: 65_535 }),
    stopTimeoutMs: readStopTimeoutMs(r),
  };
  // A fetch smaller than one partition's share would cut every batch down to it.
  const { fetchMaxBytes = defaultFetchMaxBytes, fetchMaxBytesPerPartition = defaultFetchMaxBytesPerPartition } = config;
  if (fetchMaxBytes < fetchMaxBytesPerPartition) {
    r.problems.push(`OSSN_FETCH_MAX_BYTES (${fetchMaxBytes}) must be at least OSSN_FETCH_MAX_BYTES_PER_PARTITION (${fetchMaxBytesPerPartition})`);
  }
  r.done();
  return config;
}

export function readQueryConfig(env: Env = process.env): QueryConfig {
  const r = new EnvReader(env);
  const port = r.integer('PORT', 8080, { min: 0, max: 65_535 });
  const config: QueryConfig = {
    logLevel: readLogLevel(r),
    store: readStore(r),
    host: r.string('HOST', '127.0.0.1'),
    port,
    publicBaseUrl: r.url('PUBLIC_BASE_URL', ['http', 'https'], `http://localhost:${port}`).replace(/\/+$/, ''),
    redisUrl: r.optionalUrl('REDIS_URL', ['redis', 'rediss']),
    requestsPerMinute: r.integer('RATE_LIMIT_PER_MINUTE', 300, { min: 1, max: 1_000_000 }),
    rateLimitWindowMs: r.integer('RATE_LIMIT_WINDOW_MS', 60_000, { min: 100, max: 3_600_000 }),
    trustedProxyHops: r.integer('TRUSTED_PROXY_HOPS', 0, { min: 0, max: 10 }),
    storeTimeoutMs: readStoreTimeoutMs(r),
    // The headers' timeout is cut to it when shorter.
    requestTimeoutMs: r.integer('REQUEST_TIMEOUT_MS', 5_000, { min: 1_000, max: 600_000 }),
    maxConnections: r.integer('MAX_CONNECTIONS', 1_000, { min: 1, max: 1_000_000 }),
    maxConnectionsPerAddress: r.integer('MAX_CONNECTIONS_PER_ADDRESS', 32, { min: 1, max: 1_000_000 }),
    lookupsInFlightPerCredential: r.integer('LOOKUPS_IN_FLIGHT_PER_CREDENTIAL', 4, { min: 1, max: 1_000 }),
    opsHost: r.string('OPS_HOST', '127.0.0.1'),
    opsPort: r.integer('OPS_PORT', 9465, { min: 0, max: 65_535 }),
    stopTimeoutMs: readStopTimeoutMs(r),
    supplierTimeZone: r.timeZone('OSSN_SUPPLIER_TIME_ZONE', 'UTC'),
  };
  r.done();
  return config;
}

export interface PublishConfig {
  logLevel: LogLevel;
  kafkaBrokers: string[];
  topic: string;
  /** Partitions of the topics when `ossn publish --create-topics` creates them. */
  topicPartitions: number;
}

/** For commands that only touch the read-model database (credential management). */
export function readStoreConfig(env: Env = process.env): StoreConfig {
  const r = new EnvReader(env);
  const store = readStore(r);
  r.done();
  return store;
}

export interface PushConfig {
  store: StoreConfig;
  /** The key that seals receivers' passwords (secret-key.ts): required, push commands do nothing without it. */
  secretKey: SecretKey;
}

/** For the push commands: the read-model database and the operator's secret key. */
export function readPushConfig(env: Env = process.env): PushConfig {
  const r = new EnvReader(env);
  const { store, sealingKey } = readStoreAndSecretKey(r);
  r.done();
  return { store, secretKey: sealingKey() };
}

export interface PusherConfig {
  logLevel: LogLevel;
  store: StoreConfig;
  secretKey: SecretKey;
  /** How often each subscription polls for news (and at most how long a due delivery waits). */
  pollIntervalMs: number;
  /** A subscription's lease: a pusher gone silent (killed) holds it at most this long. */
  leaseTtlMs: number;
  /** One request to a receiver, connect to last byte of the answer. */
  sendTimeoutMs: number;
  /** OSSN_PUSH_MAX_AGE: how long a delivery is retried from its first attempt before it is parked. */
  maxAgeMs: number;
  /** The first retry's back-off ceiling, doubling per attempt. */
  retryBaseMs: number;
  /** How long a receiver's circuit stays open after repeated failures, before its first probe. */
  circuitCoolDownMs: number;
  requestsPerReceiver: number;
  /** The longest one store operation may take. */
  storeTimeoutMs: number;
  /** Where `ossn pusher` serves /metrics, /healthz and /readyz; port 0 picks a free one. */
  metricsHost: string;
  metricsPort: number;
  stopTimeoutMs: number;
}

/** For `ossn pusher` (docs/operations.md, Configuration). */
export function readPusherConfig(env: Env = process.env): PusherConfig {
  const r = new EnvReader(env);
  const { store, sealingKey } = readStoreAndSecretKey(r);
  const config = {
    logLevel: readLogLevel(r),
    store,
    pollIntervalMs: r.integer('OSSN_PUSH_POLL_INTERVAL_MS', 2_000, { min: 100, max: 600_000 }),
    leaseTtlMs: r.integer('OSSN_PUSH_LEASE_TTL_MS', 60_000, { min: 3_000, max: 3_600_000 }),
    sendTimeoutMs: r.integer('OSSN_PUSH_SEND_TIMEOUT_MS', 30_000, { min: 1_000, max: 600_000 }),
    maxAgeMs: r.duration('OSSN_PUSH_MAX_AGE', 24 * 3_600_000, { minMs: 60_000, maxMs: 30 * 86_400_000 }),
    retryBaseMs: r.integer('OSSN_PUSH_RETRY_BASE_MS', 2_000, { min: 10, max: 600_000 }),
    circuitCoolDownMs: r.integer('OSSN_PUSH_CIRCUIT_COOL_DOWN_MS', 30_000, { min: 100, max: 3_600_000 }),
    requestsPerReceiver: r.integer('OSSN_PUSH_REQUESTS_PER_RECEIVER', 4, { min: 1, max: 256 }),
    storeTimeoutMs: readStoreTimeoutMs(r),
    metricsHost: r.string('OSSN_PUSHER_METRICS_HOST', '127.0.0.1'),
    metricsPort: r.integer('OSSN_PUSHER_METRICS_PORT', 9466, { min: 0, max: 65_535 }),
    stopTimeoutMs: readStopTimeoutMs(r),
  };
  // A send must end, with its answer recorded, well inside the lease it is sent under.
  if (config.sendTimeoutMs * 2 > config.leaseTtlMs) {
    r.problems.push(`OSSN_PUSH_SEND_TIMEOUT_MS (${config.sendTimeoutMs}) must be at most half of OSSN_PUSH_LEASE_TTL_MS (${config.leaseTtlMs})`);
  }
  r.done();
  return { ...config, secretKey: sealingKey() };
}

export function readPublishConfig(env: Env = process.env): PublishConfig {
  const r = new EnvReader(env);
  const config: PublishConfig = {
    logLevel: readLogLevel(r),
    kafkaBrokers: r.brokers('KAFKA_BROKERS'),
    topic: r.string('OSSN_TOPIC', defaultTopic),
    topicPartitions: readTopicPartitions(r),
  };
  r.done();
  return config;
}
