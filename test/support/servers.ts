import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { StackEnv } from '../../scripts/stack/stack.js';
import { dropAfterFile } from './leftover-names.js';

/** Where the run's servers come from: test/global-setup.ts's choice, or the cluster project's local cluster. */
export type ServerSource = 'environment' | 'docker' | 'local-stack' | 'local-cluster';

/** What test/global-setup.ts provides to every integration test file. */
export interface ProvidedServers extends StackEnv {
  source: ServerSource;
}

declare module 'vitest' {
  export interface ProvidedContext {
    servers: ProvidedServers;
    /** The local cluster's addresses, from test/cluster/global-setup.ts (the cluster project's only servers). */
    cluster: StackEnv;
  }
}

/** Servers' addresses as the tests use them. */
export interface ServerAddresses {
  kafkaBrokers: string[];
  mongodbUri: string;
  redisUrl: string;
  /** The same addresses as environment variables, for code that reads its configuration from there. */
  env: StackEnv;
}

/** The addresses of `env`, as the tests use them. */
export function addressesOf(env: StackEnv): ServerAddresses {
  const { KAFKA_BROKERS, MONGODB_URI, REDIS_URL } = env;
  return {
    kafkaBrokers: KAFKA_BROKERS.split(',').map((broker) => broker.trim()),
    mongodbUri: MONGODB_URI,
    redisUrl: REDIS_URL,
    env: { KAFKA_BROKERS, MONGODB_URI, REDIS_URL },
  };
}

export interface Servers extends ServerAddresses {
  source: ServerSource;
}

/**
 * The Kafka, MongoDB-protocol and Redis servers of this test run: in the cluster project, where
 * only the cluster is provided, the cluster (so that leftovers.ts drops what a file made there).
 */
export function servers(): Servers {
  const provided = inject('servers');
  if (!provided) return { ...addressesOf(inject('cluster')), source: 'local-cluster' };
  return { ...addressesOf(provided), source: provided.source };
}

/** The name the service tests import `servers` by. */
export const testEnvironment = servers;

export interface UniqueNames {
  /** Random, shared by the names below: what the test makes under names holding it is dropped after its file. */
  suffix: string;
  /** A MongoDB database of the caller's own. */
  database: string;
  /** A Kafka topic of the caller's own. */
  topic: string;
  /** A Kafka consumer group of the caller's own. */
  group: string;
}

const slug = (text: string, separator: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join(separator);

/**
 * Names no other test (nor an earlier run) uses, so that test files run in parallel against the
 * same servers without seeing each other's data. Call it again for a second set. The databases,
 * topics and consumer groups whose names hold the suffix are dropped after the test file
 * (leftovers.ts), names derived from these included.
 */
export function uniqueNames(prefix: string): UniqueNames {
  const suffix = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  dropAfterFile(suffix);
  const base = `test.${slug(prefix, '-')}.${suffix}`;
  return {
    suffix,
    // [a-z0-9_] and under 64 characters: a database name MongoDB accepts.
    database: `t_${slug(prefix, '_').slice(0, 40)}_${suffix}`,
    topic: base,
    group: `${base}.group`,
  };
}
