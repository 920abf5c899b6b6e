import { inject } from 'vitest';
import { addressesOf, type ServerAddresses } from '../../support/servers.js';

/** The cluster's addresses (provided by test/cluster/global-setup.ts as 'cluster'). */
export type ClusterServers = ServerAddresses;

/** The local cluster (3 mongod in rs-cluster, 3 Kafka nodes, Redis) this run's cluster tests share. */
export function clusterServers(): ClusterServers {
  return addressesOf(inject('cluster'));
}
