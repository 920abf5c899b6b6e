// The questions ossn asks Kafka about its topics and consumer groups, on one admin connection: the
// rest of ossn asks through these, never through kafkajs (docs/development.md, Layout).
import type { Admin } from 'kafkajs';
import type { KafkaClient } from './client.js';
import { describeGroupMembers, type GroupView } from './group-members.js';
import { committedOffsets, partitionLags, type PartitionLag } from './progress.js';

/** What a topic holds: all its messages kept, and those stored lately. */
export interface TopicCounts {
  all: bigint;
  lately: bigint;
}

/** An admin connection to the cluster, not connected until connect(). */
export class KafkaAdmin {
  readonly #admin: Admin;

  constructor(kafka: KafkaClient) {
    this.#admin = kafka.admin();
  }

  connect(): Promise<void> {
    return this.#admin.connect();
  }

  disconnect(): Promise<void> {
    return this.#admin.disconnect();
  }

  /** The names of the cluster's topics. */
  topicNames(): Promise<string[]> {
    return this.#admin.listTopics();
  }

  /** How many brokers the cluster says it has. */
  async brokerCount(): Promise<number> {
    return (await this.#admin.describeCluster()).brokers.length;
  }

  /** The topic's end offset, by partition. */
  async endOffsets(topic: string): Promise<Map<number, bigint>> {
    return new Map((await this.#admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]));
  }

  /** The messages `topic` keeps, and those of them stored in the last `lastMs`. */
  async messageCounts(topic: string, lastMs: number): Promise<TopicCounts> {
    const ends = await this.#admin.fetchTopicOffsets(topic);
    const from = await this.#admin.fetchTopicOffsetsByTimestamp(topic, Date.now() - lastMs);
    const since = new Map(from.map((p) => [p.partition, BigInt(p.offset)]));
    let all = 0n;
    let recent = 0n;
    for (const p of ends) {
      const high = BigInt(p.high);
      all += high - BigInt(p.low);
      const first = since.get(p.partition) ?? high;
      // -1: nothing stored since then.
      recent += high - (first < 0n ? high : first);
    }
    return { all, lately: recent };
  }

  /** See progress.ts. */
  partitionLags(groupId: string, topic: string): Promise<PartitionLag[]> {
    return partitionLags(this.#admin, groupId, topic);
  }

  /** See progress.ts. */
  committedOffsets(groupId: string, topic: string): Promise<Map<number, bigint>> {
    return committedOffsets(this.#admin, groupId, topic);
  }

  /** The group's state and members (group-members.ts). */
  describeGroup(groupId: string): Promise<GroupView> {
    return describeGroupMembers(this.#admin, groupId);
  }

  /** How many members the group has (0 for a group that does not exist). */
  async memberCount(groupId: string): Promise<number> {
    const [group] = (await this.#admin.describeGroups([groupId])).groups;
    return group?.members.length ?? 0;
  }

  /** The ids of the cluster's consumer groups. */
  async groupIds(): Promise<string[]> {
    return (await this.#admin.listGroups()).groups.map((g) => g.groupId);
  }

  /** Deletes a consumer group (Kafka refuses one that has members). */
  async deleteGroup(groupId: string): Promise<void> {
    await this.#admin.deleteGroups([groupId]);
  }
}

/** `work` on an admin connection opened for it and closed after, whatever it did. */
export async function withKafkaAdmin<T>(kafka: KafkaClient, work: (admin: KafkaAdmin) => Promise<T>): Promise<T> {
  const admin = new KafkaAdmin(kafka);
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}
