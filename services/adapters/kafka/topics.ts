import type { Admin, ITopicMetadata, Kafka } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { deadLetterTopic } from '../../../contracts/transport.js';

/** How the event topic and its dead-letter topic are replicated; absent fields are the brokers' defaults. */
export interface TopicReplication {
  replicationFactor?: number;
  minInsyncReplicas?: number;
}

/** A broker that answered, as the cluster's metadata names it. */
export interface AnsweringBroker {
  nodeId: number;
  host: string;
  port: number;
}

/** What ensureTopics found and did. */
export interface TopicsReport {
  /**
   * The brokers the cluster's metadata lists: those alive now. kafkajs shows no controller's view
   * of the brokers registered, so a broker away is not counted and cannot be named.
   */
  brokers: AnsweringBroker[];
  replication: TopicReplication;
  created: string[];
  /** Topics that existed with fewer replicas than ossn would give them on this cluster; left as they are. */
  underReplicated: { topic: string; replicationFactor: number }[];
}

/** Replicas ossn gives the topics on a cluster big enough for them. */
const clusterReplicas = 3;

/**
 * On 3 brokers or more, 3 replicas of which 2 must have a write before it is acknowledged (the
 * producers wait for all in-sync replicas): one broker may be away and writes go on, and an
 * acknowledged event survives losing any one broker. Fewer brokers cannot hold 3 replicas; there
 * the brokers' own defaults stand, as on a one-broker development stack.
 */
export function replicationFor(brokers: number): TopicReplication {
  return brokers >= clusterReplicas ? { replicationFactor: 3, minInsyncReplicas: 2 } : {};
}

/** Existing topics with fewer replicas than `replication` asks for (none when it asks for the defaults). */
export function underReplicatedTopics(
  existing: { topic: string; replicationFactor: number }[],
  replication: TopicReplication,
): { topic: string; replicationFactor: number }[] {
  const wanted = replication.replicationFactor;
  return wanted === undefined ? [] : existing.filter((t) => t.replicationFactor < wanted);
}

/**
 * The report as an operator reads it: one line on the topics and the replication chosen, and a
 * warning per under-replicated topic. Fewer than 3 brokers answering may be a small cluster or a
 * cluster with brokers away: the line names those that answered, and how to check the topics once
 * all answer.
 */
export function topicsReportLines(report: TopicsReport, partitions: number): { said: string; warnings: string[] } {
  const { brokers, replication, created } = report;
  const cluster = `${brokers.length} broker${brokers.length === 1 ? '' : 's'}`;
  const answered = `only ${cluster} answered (${brokers.map((b) => `node ${b.nodeId} at ${b.host}:${b.port}`).join(', ')})`;
  const rerun = `if the cluster has more, rerun ossn setup once all answer: it warns of a topic with fewer replicas than ${clusterReplicas} (ossn does not reassign partitions)`;
  const fewAnswered = replication.replicationFactor === undefined;
  const said = fewAnswered
    ? created.length > 0
      ? `created ${created.join(' and ')} with ${partitions} partition${partitions === 1 ? '' : 's'} and the brokers' default replication: ${answered}, and ${clusterReplicas} or more get replication factor ${clusterReplicas}; ${rerun}`
      : `topics exist; left as they are, their replication unchecked: ${answered}; ${rerun}`
    : created.length > 0
      ? `created ${created.join(' and ')} with ${partitions} partition${partitions === 1 ? '' : 's'}, replication factor ${replication.replicationFactor} and min.insync.replicas=${replication.minInsyncReplicas} (${cluster})`
      : `topics exist; left as they are (${cluster})`;
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
        // kafkajs's own wait gives up on a broker whose metadata does not list the topic yet (on a
        // loaded machine, right after creating it): "This server does not host this topic-partition".
        waitForLeaders: false,
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
      await untilLed(admin, missing);
    }
    const replicated =
      present.length === 0 || replication.replicationFactor === undefined
        ? []
        : (await admin.fetchTopicMetadata({ topics: present })).topics.map((t) => ({
            topic: t.name,
            replicationFactor: Math.min(...t.partitions.map((p) => p.replicas.length)),
          }));
    return {
      brokers: brokers.map(({ nodeId, host, port }) => ({ nodeId, host, port })).sort((a, b) => a.nodeId - b.nodeId),
      replication,
      created: missing,
      underReplicated: underReplicatedTopics(replicated, replication),
    };
  } finally {
    await admin.disconnect();
  }
}

/** How long ensureTopics waits for the topics it created to have a leader for every partition. */
const leadersDeadlineMs = 30_000;
const leadersPauseMs = 100;

/**
 * Whether a topic's metadata shows it ready to be written: listed with partitions, each with a
 * leader. `failure` is the metadata request's error: a topic just created is unknown to a broker, or
 * without leaders, for a moment; any other error is not waited out.
 */
export function topicReadiness(metadata: ITopicMetadata | undefined, failure?: { type?: string }): 'ready' | 'wait' | 'fail' {
  if (failure) return failure.type === 'UNKNOWN_TOPIC_OR_PARTITION' || failure.type === 'LEADER_NOT_AVAILABLE' ? 'wait' : 'fail';
  if (!metadata || metadata.partitions.length === 0) return 'wait';
  return metadata.partitions.every((partition) => partition.leader >= 0) ? 'ready' : 'wait';
}

/** Waits until each of `topics` has a leader for every partition, at most leadersDeadlineMs. */
async function untilLed(admin: Admin, topics: string[]): Promise<void> {
  const giveUpAt = Date.now() + leadersDeadlineMs;
  for (;;) {
    let failure: (Error & { type?: string }) | undefined;
    const metadata = await admin.fetchTopicMetadata({ topics }).then(
      (answer) => answer.topics,
      (error: Error) => ((failure = error), []),
    );
    const readiness = topics.map((topic) => topicReadiness(metadata.find((m) => m.name === topic), failure));
    if (readiness.every((r) => r === 'ready')) return;
    if (failure && readiness.includes('fail')) throw failure;
    if (Date.now() > giveUpAt) throw new Error(`Kafka created topics ${topics.join(' and ')} but named no leader for each of their partitions within ${leadersDeadlineMs / 1000} s`);
    await sleep(leadersPauseMs);
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
