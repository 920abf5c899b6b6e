// The local cluster as the failover suite uses it: three mongod in one replica set, three Kafka
// nodes in one cluster, and members that can be killed (SIGKILL, as a crash) and restarted on
// their data, after which they rejoin and what was written with them survives.
import { describe, expect, it } from 'vitest';
import {
  clusterMemberForKafkaNode,
  clusterMemberForMongoHost,
  clusterMemory,
  clusterStatus,
  killClusterMember,
  restartClusterMember,
  type ClusterMemberName,
} from '../../scripts/stack/cluster.js';
import { waitFor } from '../../scripts/stack/wait.js';
import { createMongoClient } from '../../services/adapters/mongodb/connect.js';
import { uniqueNames } from '../support/servers.js';
import { useClusterClients } from './support/cluster-clients.js';

// Dropped after the file with what else holds its suffix (test/support/leftovers-setup.ts).
const { topic, database } = uniqueNames('cluster-stack');
/** Members this file killed are started again after it, whatever happened in between. */
const clients = useClusterClients('cluster-stack-test');
const { kafka, killed } = clients;

interface MemberState {
  name: string;
  stateStr: string;
}

async function replicaSetMembers(): Promise<MemberState[]> {
  const status = await clients.mongo.db('admin').command({ replSetGetStatus: 1 });
  return status.members as MemberState[];
}

async function memberStatus(name: ClusterMemberName) {
  const member = (await clusterStatus()).find((status) => status.name === name);
  if (!member) throw new Error(`no ${name} in the cluster's status`);
  return member;
}

async function registeredNodeIds(): Promise<number[]> {
  return (await clients.admin.describeCluster()).brokers.map((broker) => broker.nodeId).sort();
}

/** Every message of the topic, read from the start by a consumer of its own. */
async function readAll(expected: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `${topic}.reader` });
  const seen: string[] = [];
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await waitFor(() => seen.length >= expected, { timeoutMs: 60_000, timeoutMessage: `read ${seen.length} of ${expected} messages of ${topic} in 60 s` });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

describe('the local cluster', () => {
  it('is a replica set of three members with one primary, and a Kafka cluster of three brokers', async () => {
    const members = await replicaSetMembers();
    expect(members).toHaveLength(3);
    expect(members.filter((member) => member.stateStr === 'PRIMARY')).toHaveLength(1);
    expect(members.filter((member) => member.stateStr === 'SECONDARY')).toHaveLength(2);
    expect(await registeredNodeIds()).toEqual([1, 2, 3]);
    const memory = await clusterMemory();
    expect(memory.map((member) => member.name).sort()).toEqual(['kafka-1', 'kafka-2', 'kafka-3', 'mongodb-1', 'mongodb-2', 'mongodb-3', 'redis']);
    expect(memory.every((member) => member.rssBytes > 0)).toBe(true);
  });

  it('takes a killed secondary and a killed broker back on their data, and a topic of three replicas keeps every message', async () => {
    await clients.admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const sent: string[] = [];
    const send = async (phase: string) => {
      const values = Array.from({ length: 30 }, (_, i) => `${phase}-${i}`);
      await producer.send({ topic, acks: -1, messages: values.map((value) => ({ key: value, value })) });
      sent.push(...values);
    };
    const orders = clients.mongo.db(database).collection<{ _id: string }>('orders');
    let restartedHost = '';
    try {
      await send('before');
      await orders.insertOne({ _id: 'before' }, { writeConcern: { w: 'majority' } });

      const secondary = (await replicaSetMembers()).find((member) => member.stateStr === 'SECONDARY') as MemberState;
      restartedHost = secondary.name;
      const mongod = clusterMemberForMongoHost(secondary.name);
      const [partition] = (await clients.admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions ?? [];
      const broker = clusterMemberForKafkaNode(partition?.leader ?? 1);
      killed.add(mongod).add(broker);
      await Promise.all([killClusterMember(mongod), killClusterMember(broker)]);
      for (const name of [mongod, broker]) expect(await memberStatus(name)).toMatchObject({ pid: undefined, answers: false, rssBytes: 0 });

      // Two of three: majority writes and acks=all writes (min.insync.replicas=2) go on.
      await send('during');
      await orders.insertOne({ _id: 'during' }, { writeConcern: { w: 'majority', wtimeout: 30_000 } });

      await Promise.all([restartClusterMember(mongod), restartClusterMember(broker)]);
      expect(await memberStatus(mongod)).toMatchObject({ answers: true, role: 'SECONDARY' });
      expect(await memberStatus(broker)).toMatchObject({ answers: true });
      expect(await registeredNodeIds()).toEqual([1, 2, 3]);
      await send('after');
    } finally {
      await producer.disconnect();
    }

    // The restarted broker catches up: every partition has its three replicas in sync again.
    await waitFor(
      async () => ((await clients.admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions ?? []).every((p) => p.isr.length === 3),
      { timeoutMs: 60_000, intervalMs: 500, timeoutMessage: `${topic} has not got three in-sync replicas per partition back within 60 s` },
    );
    expect((await readAll(sent.length)).sort()).toEqual([...sent].sort());
    // The restarted secondary catches up too: it holds what was written while it was away.
    expect(await orders.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 'before' }, { _id: 'during' }]);
    const restarted = createMongoClient(`mongodb://${restartedHost}/?directConnection=true&readPreference=secondaryPreferred`, 'cluster-stack-test');
    try {
      const copy = restarted.db(database).collection('orders');
      await waitFor(async () => (await copy.countDocuments()) === 2, {
        timeoutMs: 30_000,
        timeoutMessage: `${restartedHost} has not replicated the writes made while it was down within 30 s`,
      });
    } finally {
      await restarted.close();
    }
  });
});
