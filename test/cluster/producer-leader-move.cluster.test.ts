// Our producer (services/adapters/kafka/producer.ts) when the leader of some partitions dies in the
// middle of a send whose other partitions' leaders have already taken their messages: the dead
// broker's partitions move to those leaders, and a send that ossn reports as acknowledged must have
// every message in the topic. kafkajs alone resolves such a send with the moved partitions' messages
// never sent (the failover suite's case (c) lost acknowledged ERP events so).
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { clusterMemberForKafkaNode, freezeClusterMember, killClusterMember, restartClusterMember, type ClusterMemberName } from '../../scripts/stack/cluster.js';
import { createKafka } from '../../services/adapters/kafka/client.js';
import { connectProducer } from '../../services/adapters/kafka/producer.js';
import { readTopic } from '../../services/adapters/kafka/read-topic.js';
import { ensureTopics } from '../../services/adapters/kafka/topics.js';
import { createLogger } from '../../services/plumbing/logging/logger.js';
import { uniqueNames } from '../support/servers.js';
import { clusterServers } from './support/cluster-servers.js';

const cluster = clusterServers();
const { topic } = uniqueNames('producer-leader-move');
const kafka = new Kafka({ clientId: 'producer-leader-move-test', brokers: cluster.kafkaBrokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
/** Frozen or killed and not yet restarted: killed and restarted after the file whatever happened. */
let struck: ClusterMemberName | undefined;

afterAll(async () => {
  if (struck) {
    await killClusterMember(struck);
    await restartClusterMember(struck);
  }
  await admin.disconnect();
});

it('a send acknowledged while the leader of some of its partitions dies has every message in the topic', { timeout: 180_000 }, async () => {
  await admin.connect();
  await ensureTopics(kafka, topic, 6);
  const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
  const leaders = new Map((metadata?.partitions ?? []).map((p) => [p.partitionId, p.leader]));
  const victim = leaders.get(0)!;
  const elsewhere = [...leaders].filter(([, leader]) => leader !== victim).map(([partition]) => partition);
  // Leaders are spread over the brokers: the send spans the victim and brokers that will answer.
  expect(elsewhere.length, `partitions led by another broker than ${victim}`).toBeGreaterThan(0);

  // The producer is opened (its producer id given) before the victim hangs.
  const producer = await connectProducer(createKafka(cluster.kafkaBrokers, 'producer-leader-move', createLogger('test', 'silent')));
  try {
    const messages = Array.from({ length: 600 }, (_, n) => ({ key: `key-${n}`, value: `${n}-${randomBytes(4).toString('hex')}` }));
    struck = clusterMemberForKafkaNode(victim);
    await freezeClusterMember(struck);
    const sending = producer.send(topic, messages).then(
      () => 'acknowledged' as const,
      (error: Error) => error,
    );
    // The other leaders take their partitions' messages and answer within milliseconds; the victim
    // holds its own. (No admin can tell when they have: its offset requests go to every partition's
    // leader, the frozen one too.)
    await sleep(3_000);
    await killClusterMember(struck);
    // The controller fences the dead broker (broker.session.timeout.ms, 9 s) and its partitions
    // get leaders among the others; the send's retries then find them.
    const outcome = await sending;
    expect(outcome, 'the send acknowledged').toBe('acknowledged');
  } finally {
    await producer.close();
  }
  await restartClusterMember(struck);
  struck = undefined;

  const stored = (await readTopic(kafka, topic)).map((m) => String(m.value));
  expect(stored.length, 'messages in the topic').toBe(600);
  expect(new Set(stored).size).toBe(600);
});
