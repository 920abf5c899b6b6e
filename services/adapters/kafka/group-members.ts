import { AssignerProtocol, type Admin } from 'kafkajs';

/** One member of a consumer group. */
export interface GroupMember {
  /** `<clientId> on <host>`, as an operator finds it. */
  name: string;
  /** The topics it subscribed to. */
  topics: string[];
  /** The partitions it was given, by topic. */
  assigned: Record<string, number[]>;
}

export interface GroupView {
  /** Kafka's state of the group: Stable, PreparingRebalance, CompletingRebalance, Empty, Dead. */
  state: string;
  members: GroupMember[];
}

/**
 * The members of a consumer group as Kafka describes them: who each is, the topics it subscribed
 * to and the partitions it was given (decoded from the consumer protocol's metadata and assignment).
 */
export async function describeGroupMembers(admin: Admin, groupId: string): Promise<GroupView> {
  const [group] = (await admin.describeGroups([groupId])).groups;
  if (!group) return { state: 'Dead', members: [] };
  const members = group.members.map((member) => {
    // A member of another protocol (not a consumer) decodes to nothing: it reads no topic we know of.
    const metadata = group.protocolType === 'consumer' ? safely(() => AssignerProtocol.MemberMetadata.decode(member.memberMetadata)) : undefined;
    const assignment = group.protocolType === 'consumer' ? safely(() => AssignerProtocol.MemberAssignment.decode(member.memberAssignment)) : undefined;
    return {
      name: `${member.clientId} on ${member.clientHost.replace(/^\//, '')}`,
      topics: metadata?.topics ?? [],
      assigned: assignment?.assignment ?? {},
    };
  });
  return { state: group.state, members };
}

function safely<T>(decode: () => T | null): T | undefined {
  try {
    return decode() ?? undefined;
  } catch {
    return undefined;
  }
}
