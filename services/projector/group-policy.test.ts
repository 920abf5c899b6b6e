import { describe, expect, it } from 'vitest';
import type { GroupMember } from '../adapters/kafka/group-members.js';
import { membersOfOtherTopics, otherTopicsRefusal, unassignedPartitions } from './group-policy.js';

const member = (name: string, topics: string[], assigned: Record<string, number[]> = {}): GroupMember => ({ name, topics, assigned });

describe("a consumer group's members, for a projector of one topic", () => {
  it.each<[string, GroupMember[], string[]]>([
    ['no member', [], []],
    ['members of the topic', [member('a', ['live'], { live: [0, 1] }), member('b', ['live'], { live: [2] })], []],
    ['a member of another topic (the trial projector)', [member('a', ['live'], { live: [0, 1, 2] }), member('trial', ['trial'])], ['trial']],
    ['a member reading both', [member('both', ['live', 'trial'])], ['both']],
  ])('%s', (_case, members, others) => {
    expect(membersOfOtherTopics(members, 'live').map((m) => m.name)).toEqual(others);
  });

  it.each<[string, GroupMember[], number[]]>([
    ['no member: nothing flagged (the screen says NO MEMBER)', [], []],
    ['every partition given', [member('a', ['live'], { live: [0, 2, 4] }), member('b', ['live'], { live: [1, 3, 5] })], []],
    // Kafka gave the trial member partitions of the live topic, which it drops.
    ['partitions given to a member of another topic', [member('a', ['live'], { live: [0, 1, 2] }), member('trial', ['trial'], { live: [3, 4, 5] })], []],
    ['partitions given to no one', [member('a', ['live'], { live: [0, 1, 2] }), member('trial', ['trial'], {})], [3, 4, 5]],
    ['a member that was given nothing of the topic', [member('trial', ['trial'], { trial: [0] })], [0, 1, 2, 3, 4, 5]],
  ])('%s', (_case, members, unassigned) => {
    expect(unassignedPartitions(members, 'live', [0, 1, 2, 3, 4, 5])).toEqual(unassigned);
  });

  it('refuses in one sentence naming the group, who reads what, and OSSN_CONSUMER_GROUP', () => {
    expect(otherTopicsRefusal('ossn-projector-v1', 'trial', [member('ossn-projector on /10.0.0.5', ['live'])])).toBe(
      'consumer group ossn-projector-v1 has members reading another topic (ossn-projector on /10.0.0.5 reads live): a projector of trial does not join it, as Kafka would hand it partitions of that topic that it would drop; set OSSN_CONSUMER_GROUP to a group of its own (the default, ossn-projector-<topic>-v<READ_MODEL_VERSION>, is one)',
    );
  });
});
