import { describe, expect, it } from 'vitest';
import { replicationFor, topicReadiness, topicsReportLines, underReplicatedTopics, type TopicsReport } from './topics.js';

describe('replicationFor', () => {
  it('gives 3 replicas, 2 of them in sync for a write, from 3 brokers on; the brokers\u2019 defaults below', () => {
    expect([1, 2, 3, 4, 7].map(replicationFor)).toEqual([
      {},
      {},
      { replicationFactor: 3, minInsyncReplicas: 2 },
      { replicationFactor: 3, minInsyncReplicas: 2 },
      { replicationFactor: 3, minInsyncReplicas: 2 },
    ]);
  });
});

describe('underReplicatedTopics', () => {
  const existing = [
    { topic: 'erp.events', replicationFactor: 1 },
    { topic: 'erp.events.dlq', replicationFactor: 3 },
  ];
  it('names an existing topic with fewer replicas than the cluster gives new ones', () => {
    expect(underReplicatedTopics(existing, replicationFor(3))).toEqual([{ topic: 'erp.events', replicationFactor: 1 }]);
  });
  it('names none where the brokers\u2019 defaults stand', () => {
    expect(underReplicatedTopics(existing, replicationFor(1))).toEqual([]);
  });
});

describe('topicsReportLines', () => {
  const answering = (count: number) => Array.from({ length: count }, (_, i) => ({ nodeId: i + 1, host: `kafka-${i + 1}`, port: 9092 }));
  const report = (brokers: number, created: string[], underReplicated: TopicsReport['underReplicated'] = []): TopicsReport => ({
    brokers: answering(brokers),
    replication: replicationFor(brokers),
    created,
    underReplicated,
  });
  it('says what was created and with which replication, in one line', () => {
    expect(topicsReportLines(report(3, ['t', 't.dlq']), 6)).toEqual({
      said: 'created t and t.dlq with 6 partitions, replication factor 3 and min.insync.replicas=2 (3 brokers)',
      warnings: [],
    });
  });
  it('with fewer than 3 brokers answering, names them, says the topics got the brokers\u2019 default, and how to check them once all answer', () => {
    expect(topicsReportLines(report(2, ['t', 't.dlq']), 6)).toEqual({
      said:
        "created t and t.dlq with 6 partitions and the brokers' default replication: only 2 brokers answered (node 1 at kafka-1:9092, node 2 at kafka-2:9092), and 3 or more get replication factor 3; " +
        'if the cluster has more, rerun ossn setup once all answer: it warns of a topic with fewer replicas than 3 (ossn does not reassign partitions)',
      warnings: [],
    });
    expect(topicsReportLines(report(1, ['t.dlq']), 1).said).toBe(
      "created t.dlq with 1 partition and the brokers' default replication: only 1 broker answered (node 1 at kafka-1:9092), and 3 or more get replication factor 3; " +
        'if the cluster has more, rerun ossn setup once all answer: it warns of a topic with fewer replicas than 3 (ossn does not reassign partitions)',
    );
  });
  it('with fewer than 3 brokers answering and the topics there, says their replication was not checked', () => {
    expect(topicsReportLines(report(2, []), 6).said).toBe(
      'topics exist; left as they are, their replication unchecked: only 2 brokers answered (node 1 at kafka-1:9092, node 2 at kafka-2:9092); ' +
        'if the cluster has more, rerun ossn setup once all answer: it warns of a topic with fewer replicas than 3 (ossn does not reassign partitions)',
    );
  });
  it('warns of an under-replicated topic, naming it and its factor, and that ossn leaves it', () => {
    const lines = topicsReportLines(report(3, [], [{ topic: 't', replicationFactor: 1 }]), 6);
    expect(lines.said).toBe('topics exist; left as they are (3 brokers)');
    expect(lines.warnings).toEqual([
      'warning: topic t has replication factor 1 where the 3 brokers allow 3; ossn does not reassign partitions (kafka-reassign-partitions.sh does)',
    ]);
  });
});

describe('topicReadiness (ensureTopics waits for a topic it created until it can be written)', () => {
  const partition = (leader: number) => ({ partitionErrorCode: 0, partitionId: 0, leader, replicas: [], isr: [] });
  it.each([
    ['every partition led', { name: 't', partitions: [partition(1), partition(2)] }, undefined, 'ready'],
    ['a partition without a leader yet', { name: 't', partitions: [partition(1), partition(-1)] }, undefined, 'wait'],
    ['listed without partitions yet', { name: 't', partitions: [] }, undefined, 'wait'],
    ['not listed yet', undefined, undefined, 'wait'],
    ['a broker that does not know it yet', undefined, { type: 'UNKNOWN_TOPIC_OR_PARTITION' }, 'wait'],
    ['leaders being elected', undefined, { type: 'LEADER_NOT_AVAILABLE' }, 'wait'],
    ['refused for another reason', undefined, { type: 'TOPIC_AUTHORIZATION_FAILED' }, 'fail'],
  ] as const)('%s', (_, metadata, failure, expected) => {
    expect(topicReadiness(metadata ? { ...metadata, partitions: [...metadata.partitions] } : undefined, failure)).toBe(expected);
  });
});
