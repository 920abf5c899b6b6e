// What a consumer group's members say about the work of a projector of one topic: pure rules,
// fed by the Kafka admin's description of the group (adapters/kafka/group-members.ts).

import { ErrorCodes, OssnError } from '../../contracts/errors/ossn-error.js';
import { withKafkaAdmin } from '../adapters/kafka/admin.js';
import type { KafkaClient } from '../adapters/kafka/client.js';
import type { GroupMember } from '../adapters/kafka/group-members.js';

/**
 * Members that read a topic other than `topic`. A projector must not join their group: Kafka
 * would hand it partitions of their topic, which it drops, and those go unprojected while it runs.
 */
export function membersOfOtherTopics(members: readonly GroupMember[], topic: string): GroupMember[] {
  return members.filter((member) => member.topics.some((t) => t !== topic));
}

/** Partitions of `topic` that no member was given (none while the group has no member at all). */
export function unassignedPartitions(members: readonly GroupMember[], topic: string, partitions: readonly number[]): number[] {
  if (members.length === 0) return [];
  const given = new Set(members.flatMap((member) => member.assigned[topic] ?? []));
  return partitions.filter((p) => !given.has(p));
}

/** The refusal's text: which group, who reads what, and what to set instead. */
export function otherTopicsRefusal(groupId: string, topic: string, others: readonly GroupMember[]): string {
  const who = others.map((m) => `${m.name} reads ${m.topics.join(', ')}`).join('; ');
  return `consumer group ${groupId} has members reading another topic (${who}): a projector of ${topic} does not join it, as Kafka would hand it partitions of that topic that it would drop; set OSSN_CONSUMER_GROUP to a group of its own (the default, ossn-projector-<topic>-v<READ_MODEL_VERSION>, is one)`;
}

export class GroupOfAnotherTopicError extends OssnError {
  constructor(message: string) {
    super(ErrorCodes.GROUP_OF_ANOTHER_TOPIC, message);
    this.name = 'GroupOfAnotherTopicError';
  }
}

/**
 * Throws GroupOfAnotherTopicError when members of `groupId` read another topic than `topic`: asked
 * before joining (two projectors starting at the same moment may both find the group empty).
 */
export async function refuseGroupOfAnotherTopic(kafka: KafkaClient, groupId: string, topic: string): Promise<void> {
  await withKafkaAdmin(kafka, async (admin) => {
    const others = membersOfOtherTopics((await admin.describeGroup(groupId)).members, topic);
    if (others.length > 0) throw new GroupOfAnotherTopicError(otherTopicsRefusal(groupId, topic, others));
  });
}
