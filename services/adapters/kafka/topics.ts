import type { Kafka } from 'kafkajs';
import { deadLetterTopic } from '../../../contracts/transport.js';

/** How the event topic and its dead-letter topic are replicated; absent fields are the brokers' defaults. */
export interface TopicReplication {
  replicationFactor?: number;
  minInsyncReplicas?: number;
}

/** What ensureTopics found and did. */
export interface TopicsReport {
  brokers: number;
  replication: TopicReplication;
  created: string[];
  /** Topics that existed with fewer replicas than ossn would give them on this cluster; left as they are. */
  underReplicated: { topic: string; replicationFactor: number }[];
}

/**
 * On 3 brokers or more, 3 replicas of which 2 must have a write before it is acknowledged (the
 * producers wait for all in-sync replicas): one broker may be away and writes go on, and an
 * acknowledged event survives losing any one broker. Fewer brokers cannot hold 3 replicas; there
 * the brokers' own defaults stand, as on a one-broker development stack.
 */
export function replicationFor(brokers: number): TopicReplication {
  return brokers >= 3 ? { replicationFactor: 3, minInsyncReplicas: 2 } : {};
}

/** Existing topics with fewer replicas than `replication` asks for (none when it asks for the defaults). */
export function underReplicatedTopics(
  existing: { topic: string; replicationFactor: number }[],
  replication: TopicReplication,
): { topic: string; replicationFactor: number }[] {
  const wanted = replication.replicationFactor;
  return wanted === undefined ? [] : existing.filter((t) => t.replicationFactor < wanted);
}

/** The report as an operator reads it: one line on the topics and the replication chosen, and a warning per under-replicated topic. */
export function topicsReportLines(report: TopicsReport, partitions: number): { said: string; warnings: string[] } {
  const { brokers, replication, created } = report;
  const cluster = `${brokers} broker${brokers === 1 ? '' : 's'}`;
  const chosen =
    replication.replicationFactor === undefined
      ? `the brokers' default replication (${cluster}; 3 or more get replication factor 3)`
      : `replication factor ${replication.replicationFactor} and min.insync.replicas=${replication.minInsyncReplicas} (${cluster})`;
  const said = created.length > 0 ? `created ${created.join(' and ')} with ${partitions} partition${partitions === 1 ? '' : 's'}, ${chosen}` : `topics exist; left as they are (${cluster})`;
  const warnings = report.underReplicated.map(
    ({ topic, replicationFactor }) =>
      `warning: topic ${topic} has replication factor ${replicationFactor} where the ${cluster} allow ${replication.replicationFactor}; ossn does not reassign partitions (kafka-reassign-partitions.sh does)`,
  );
  return { said, warnings };
}

/**
 * Creates the event topic and its dead-letter topic when missing, replicated as replicationFor
 * chooses for the brokers the cluster has. Retention is unlimited: the topic is the system of record
 * that projections are rebuilt from. Existing topics are never changed, only reported.
 */
export async function ensureTopics(kafka: Kafka, topic: string, partitions: number): Promise<TopicsReport> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { brokers } = await admin.describeCluster();
    const replication = replicationFor(brokers.length);
    const existing = new Set(await admin.listTopics());
    const ours = [topic, deadLetterTopic(topic)];
    const missing = ours.filter((t) => !existing.has(t));
    const present = ours.filter((t) => existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t,
          numPartitions: partitions,
          ...(replication.replicationFactor === undefined ? {} : { replicationFactor: replication.replicationFactor }),
          configEntries: [
            { name: 'retention.ms', value: '-1' },
            ...(replication.minInsyncReplicas === undefined ? [] : [{ name: 'min.insync.replicas', value: String(replication.minInsyncReplicas) }]),
          ],
        })),
      });
    }
    const replicated =
      present.length === 0 || replication.replicationFactor === undefined
        ? []
        : (await admin.fetchTopicMetadata({ topics: present })).topics.map((t) => ({
            topic: t.name,
            replicationFactor: Math.min(...t.partitions.map((p) => p.replicas.length)),
          }));
    return { brokers: brokers.length, replication, created: missing, underReplicated: underReplicatedTopics(replicated, replication) };
  } finally {
    await admin.disconnect();
  }
}

/** Which of the event topic and its dead-letter topic do not exist. */
export async function missingTopics(kafka: Kafka, topic: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    return [topic, deadLetterTopic(topic)].filter((t) => !existing.has(t));
  } finally {
    await admin.disconnect();
  }
}
