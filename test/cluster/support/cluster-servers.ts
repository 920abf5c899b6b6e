import { inject } from 'vitest';
import type { StackEnv } from '../../../scripts/stack/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster's addresses, from test/cluster/global-setup.ts. */
    cluster: StackEnv;
  }
}

export interface ClusterServers {
  /** Every broker of the cluster. */
  kafkaBrokers: string[];
  /** Every member of the replica set, with its name. */
  mongodbUri: string;
  redisUrl: string;
  /** The same addresses as environment variables, for code that reads its configuration from there. */
  env: StackEnv;
}

/** The local cluster (3 mongod in rs-cluster, 3 Kafka nodes, Redis) this run's cluster tests share. */
export function clusterServers(): ClusterServers {
  const env = inject('cluster');
  return {
    kafkaBrokers: env.KAFKA_BROKERS.split(',').map((broker) => broker.trim()),
    mongodbUri: env.MONGODB_URI,
    redisUrl: env.REDIS_URL,
    env,
  };
}
