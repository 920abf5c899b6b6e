import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

const clientPort = 9092;
const starterScript = '/tmp/testcontainers_start.sh';
const waitingMessage = 'Waiting for the starter script';

/**
 * Kafka in KRaft mode from the official `apache/kafka` image (the one docker-compose.yml uses).
 * @testcontainers/kafka 11.x drives only Confluent's images, so this follows what Testcontainers
 * for Java does for apache/kafka: the broker must advertise the host port Docker maps, known only
 * after the container has started, so the container waits for a starter script that exports it.
 */
export class ApacheKafkaContainer extends GenericContainer {
  constructor(image = 'apache/kafka:4.1.1') {
    super(image);
    this.withExposedPorts(clientPort)
      .withEnvironment({
        CLUSTER_ID: 'b3NzbnRlc3RjbHVzdGVyMQ',
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${clientPort},BROKER://0.0.0.0:9093,CONTROLLER://0.0.0.0:9094`,
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9094',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'true',
      })
      .withEntrypoint(['sh'])
      .withCommand(['-c', `echo '${waitingMessage}'; while [ ! -f ${starterScript} ]; do sleep 0.1; done; exec ${starterScript}`])
      .withWaitStrategy(Wait.forLogMessage(waitingMessage))
      .withStartupTimeout(120_000);
  }

  /** Writes the starter script; the caller then waits until the broker answers (kafkaAnswers). */
  protected override async containerStarted(container: StartedTestContainer): Promise<void> {
    const brokers = `${container.getHost()}:${container.getMappedPort(clientPort)}`;
    await container.copyContentToContainer([
      {
        content: `#!/bin/bash\nexport KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://${brokers},BROKER://localhost:9093\nexec /etc/kafka/docker/run\n`,
        target: starterScript,
        mode: 0o755,
      },
    ]);
  }
}

/** The bootstrap address of a started ApacheKafkaContainer. */
export function kafkaBrokers(container: StartedTestContainer): string {
  return `${container.getHost()}:${container.getMappedPort(clientPort)}`;
}
