// `ossn setup` against the 3-broker cluster chooses replication by itself: both topics get 3
// replicas of every partition and min.insync.replicas=2 as their own setting (not a broker default
// they happen to meet), and it says so in one line. Run again, it leaves them and says nothing is wrong.
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { deadLetterTopic } from '../../contracts/transport.js';
import { runOssn } from '../support/ossn-cli.js';
import { uniqueNames } from '../support/servers.js';
import { clusterServers } from './support/cluster-servers.js';

const cluster = clusterServers();
// Dropped after the file, with the dead-letter and thin topics named after it (test/support/leftovers-setup.ts).
const { topic, database } = uniqueNames('cluster-setup');
const kafka = new Kafka({ clientId: 'cluster-setup-test', brokers: cluster.kafkaBrokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
// A topic's own setting, as against a broker's default it inherits.
const topicConfigSource = 1;

afterAll(() => admin.disconnect());

const setup = () =>
  runOssn(['setup'], {
    KAFKA_BROKERS: cluster.kafkaBrokers.join(','),
    MONGODB_URI: cluster.mongodbUri,
    MONGODB_DATABASE: database,
    OSSN_TOPIC: topic,
    OSSN_TOPIC_PARTITIONS: '3',
    LOG_LEVEL: 'warn',
  });

it('creates the event and dead-letter topics with replication factor 3 and min.insync.replicas=2, and says so', async () => {
  const first = await setup();
  expect(first).toEqual({
    code: 0,
    stdout: `created ${topic} and ${deadLetterTopic(topic)} with 3 partitions, replication factor 3 and min.insync.replicas=2 (3 brokers)\ntopics and indexes ready\n`,
    stderr: '',
  });

  await admin.connect();
  const topics = [topic, deadLetterTopic(topic)];
  const metadata = await admin.fetchTopicMetadata({ topics });
  const byName = <T extends { name: string }>(list: T[]) => list.sort((a, b) => a.name.localeCompare(b.name));
  expect(byName(metadata.topics.map((t) => ({ name: t.name, replicas: t.partitions.map((p) => p.replicas.length) })))).toEqual(
    topics.map((name) => ({ name, replicas: [3, 3, 3] })),
  );
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] })),
  });
  expect(byName(configs.resources.map((r) => ({ name: r.resourceName, entries: r.configEntries.map((e) => [e.configName, e.configValue, e.configSource]) })))).toEqual(
    topics.map((name) => ({ name, entries: [['min.insync.replicas', '2', topicConfigSource]] })),
  );

  const again = await setup();
  expect(again).toEqual({ code: 0, stdout: 'topics exist; left as they are (3 brokers)\ntopics and indexes ready\n', stderr: '' });
});

it('warns of an existing topic with fewer replicas than the cluster allows, and leaves it so', async () => {
  const thin = `${topic}.thin`;
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: thin, numPartitions: 1, replicationFactor: 1 }] });
  const run = await runOssn(['setup'], {
    KAFKA_BROKERS: cluster.kafkaBrokers.join(','),
    MONGODB_URI: cluster.mongodbUri,
    MONGODB_DATABASE: database,
    OSSN_TOPIC: thin,
    LOG_LEVEL: 'warn',
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toBe(
    `warning: topic ${thin} has replication factor 1 where the 3 brokers allow 3; ossn does not reassign partitions (kafka-reassign-partitions.sh does)\n`,
  );
  const metadata = await admin.fetchTopicMetadata({ topics: [thin] });
  expect(metadata.topics[0]?.partitions.map((p) => p.replicas.length)).toEqual([1]);
});
