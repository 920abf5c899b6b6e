import { describe, expect, it } from 'vitest';
import { replicationFor, topicsReportLines, underReplicatedTopics, type TopicsReport } from './topics.js';

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
  const report = (brokers: number, created: string[], underReplicated: TopicsReport['underReplicated'] = []): TopicsReport => ({
    brokers,
    replication: replicationFor(brokers),
    created,
    underReplicated,
  });
  it('says what was created and with which replication, in one line', () => {
    expect(topicsReportLines(report(3, ['t', 't.dlq']), 6)).toEqual({
      said: 'created t and t.dlq with 6 partitions, replication factor 3 and min.insync.replicas=2 (3 brokers)',
      warnings: [],
    });
    expect(topicsReportLines(report(1, ['t.dlq']), 3).said).toBe(
      "created t.dlq with 3 partitions, the brokers' default replication (1 broker; 3 or more get replication factor 3)",
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
