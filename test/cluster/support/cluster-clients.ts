// What a cluster test file that kills members needs around it: the cluster's Kafka, its admin and a MongoDB client
// on the cluster, opened before the file and closed after it, and the set of members it killed,
// each started again after the file whatever happened in between.
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll } from 'vitest';
import { restartClusterMember, type ClusterMemberName } from '../../../scripts/stack/cluster.js';
import { createMongoClient } from '../../../services/adapters/mongodb/connect.js';
import { clusterServers } from './cluster-servers.js';

export interface ClusterClients {
  /** The cluster's Kafka, for the file's own producers and consumers. */
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly mongo: MongoClient;
  /** Members killed and not yet restarted: restarted after the file. */
  readonly killed: Set<ClusterMemberName>;
}

/** Registers the file's beforeAll and afterAll; `admin` and `mongo` are there from beforeAll on. */
export function useClusterClients(label: string): ClusterClients {
  const cluster = clusterServers();
  const kafka = new Kafka({ clientId: label, brokers: cluster.kafkaBrokers, logLevel: logLevel.NOTHING });
  const killed = new Set<ClusterMemberName>();
  let admin: Admin | undefined;
  let mongo: MongoClient | undefined;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    mongo = createMongoClient(cluster.mongodbUri, label);
    await mongo.connect();
  });

  afterAll(async () => {
    try {
      for (const name of killed) {
        await restartClusterMember(name);
        killed.delete(name);
      }
    } finally {
      await admin?.disconnect();
      await mongo?.close();
    }
  });

  return {
    get admin() {
      if (!admin) throw new Error(`${label}: the Kafka admin opens in beforeAll`);
      return admin;
    },
    get mongo() {
      if (!mongo) throw new Error(`${label}: the MongoDB client opens in beforeAll`);
      return mongo;
    },
    kafka,
    killed,
  };
}
