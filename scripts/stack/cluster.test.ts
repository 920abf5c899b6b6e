import { describe, expect, it } from 'vitest';
import { clusterEnv, clusterKafkaNodes, clusterMemberForKafkaNode, clusterMemberForMongoHost, clusterMongodMembers } from './cluster.js';
import { readClusterConfig, readStackConfig } from './config.js';
import { kafkaServerProperties, stackKafkaNode } from './kafka.js';
import { StackError } from './stack-error.js';

/** A server.properties as a map of its settings. */
const settings = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

describe('the cluster configuration', () => {
  it('puts mongodb-N on base+10+N, kafka-N on base+20+N with its controller on base+30+N, and redis on base+40', () => {
    expect(readClusterConfig({}).ports).toEqual({
      mongodb: [20011, 20012, 20013],
      kafka: [20021, 20022, 20023],
      kafkaController: [20031, 20032, 20033],
      redis: 20040,
    });
    expect(readClusterConfig({ OSSN_STACK_CLUSTER_PORT_BASE: '30000' }).ports).toMatchObject({ mongodb: [30011, 30012, 30013], redis: 30040 });
  });

  it.each(['20000.5', 'abc', '-1', '0', '65500', '2e4', ' '])('refuses OSSN_STACK_CLUSTER_PORT_BASE=%j, naming the variable, the range and the value', (value) => {
    const read = () => readClusterConfig({ OSSN_STACK_CLUSTER_PORT_BASE: value });
    expect(read).toThrow(StackError);
    expect(read).toThrow(`OSSN_STACK_CLUSTER_PORT_BASE must be a whole number from 1 to 65495 (the cluster listens on base+11 to base+40), got '${value}'`);
  });

  it("keeps its files in the stack directory's cluster/ and shares the single stack's download cache", () => {
    const env = { OSSN_STACK_DIR: '/tmp/stack', OSSN_STACK_CACHE_DIR: '/tmp/cache' };
    expect(readClusterConfig(env)).toMatchObject({
      cacheDir: readStackConfig(env).cacheDir,
      stackDir: '/tmp/stack/cluster',
      envFile: '/tmp/stack/cluster/env',
      stateFile: '/tmp/stack/cluster/state.json',
      lockFile: '/tmp/stack/cluster/lock',
      logsDir: '/tmp/stack/cluster/logs',
    });
  });

  it('gives the addresses as a user configures a real cluster: every member, and the replica set by name', () => {
    expect(clusterEnv(readClusterConfig({ OSSN_STACK_CLUSTER_PORT_BASE: '21000' }))).toEqual({
      KAFKA_BROKERS: '127.0.0.1:21021,127.0.0.1:21022,127.0.0.1:21023',
      MONGODB_URI: 'mongodb://127.0.0.1:21011,127.0.0.1:21012,127.0.0.1:21013/?replicaSet=rs-cluster',
      REDIS_URL: 'redis://127.0.0.1:21040',
    });
  });

  it('makes each Kafka node a broker and a controller of one quorum, with three replicas of every topic and two in sync for a write', () => {
    const config = readClusterConfig({ OSSN_STACK_DIR: '/tmp/stack' });
    const nodes = clusterKafkaNodes(config);
    expect(new Set(nodes.map((node) => node.clusterIdFile)).size).toBe(1);
    const second = settings(kafkaServerProperties(nodes[1]!, '/tmp/stack/cluster/kafka-2/data'));
    expect(second).toMatchObject({
      'process.roles': 'broker,controller',
      'node.id': '2',
      'controller.quorum.voters': '1@127.0.0.1:20031,2@127.0.0.1:20032,3@127.0.0.1:20033',
      listeners: 'PLAINTEXT://127.0.0.1:20022,CONTROLLER://127.0.0.1:20032',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:20022',
      'log.dirs': '/tmp/stack/cluster/kafka-2/data',
      'default.replication.factor': '3',
      'min.insync.replicas': '2',
      'offsets.topic.replication.factor': '3',
      'transaction.state.log.replication.factor': '3',
      'transaction.state.log.min.isr': '2',
      'share.coordinator.state.topic.replication.factor': '3',
      'share.coordinator.state.topic.min.isr': '2',
      'group.initial.rebalance.delay.ms': '0',
    });
  });

  it("leaves the single stack's node a quorum of its own, every topic on it alone", () => {
    const single = settings(kafkaServerProperties(stackKafkaNode(readStackConfig({})), '/tmp/data'));
    expect(single).toMatchObject({
      'node.id': '1',
      'controller.quorum.voters': '1@127.0.0.1:19093',
      listeners: 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093',
      'default.replication.factor': '1',
      'min.insync.replicas': '1',
      'offsets.topic.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
    });
  });

  it('makes three small mongod of rs-cluster, each knowing all three', () => {
    const members = clusterMongodMembers(readClusterConfig({}));
    expect(members.map((member) => [member.name, member.port])).toEqual([['mongodb-1', 20011], ['mongodb-2', 20012], ['mongodb-3', 20013]]);
    for (const member of members) {
      expect(member).toMatchObject({ cacheSizeGb: 0.25, oplogSizeMb: 512, replicaSet: { name: 'rs-cluster', hosts: ['127.0.0.1:20011', '127.0.0.1:20012', '127.0.0.1:20013'] } });
    }
  });

  it('names the member behind a replica set host or a Kafka node id, and refuses one not in the cluster', () => {
    // The defaults, whatever OSSN_STACK_CLUSTER_PORT_BASE the run itself has.
    expect(clusterMemberForMongoHost('127.0.0.1:20012', { env: {} })).toBe('mongodb-2');
    expect(clusterMemberForMongoHost('127.0.0.1:21013', { env: { OSSN_STACK_CLUSTER_PORT_BASE: '21000' } })).toBe('mongodb-3');
    expect(() => clusterMemberForMongoHost('127.0.0.1:27018', { env: {} })).toThrow('127.0.0.1:27018 is no mongod of the cluster');
    expect(clusterMemberForKafkaNode(3)).toBe('kafka-3');
    expect(() => clusterMemberForKafkaNode(4)).toThrow('Kafka node 4 is not in the cluster');
  });
});
