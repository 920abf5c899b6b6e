import type { TestProject } from 'vitest/node';
import { kafkaAnswers } from '../scripts/stack/kafka.js';
import { ensureStack } from '../scripts/stack/stack.js';
import { waitFor } from '../scripts/stack/wait.js';
import type { ProvidedServers } from './support/servers.js';

interface Chosen {
  servers: ProvidedServers;
  description: string;
  teardown?: () => Promise<void>;
}

/** 1. Addresses given in the environment: nothing is started. */
function fromEnvironment(): Chosen | undefined {
  const { KAFKA_BROKERS, MONGODB_URI, REDIS_URL } = process.env;
  if (!KAFKA_BROKERS || !MONGODB_URI) return undefined;
  if (!REDIS_URL) {
    throw new Error(
      'KAFKA_BROKERS and MONGODB_URI are set but REDIS_URL is not: set it too, or unset them to let the tests start their servers',
    );
  }
  return {
    servers: { KAFKA_BROKERS, MONGODB_URI, REDIS_URL, source: 'environment' },
    description: `servers from the environment (Kafka ${KAFKA_BROKERS}, ${MONGODB_URI}, ${REDIS_URL})`,
  };
}

/** 2. A Docker engine answers: the official images, stopped again after the run. */
async function fromDocker(): Promise<Chosen | undefined> {
  // Loaded only here: the local-stack path should not pay for importing testcontainers.
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return undefined; // no engine: this fails within milliseconds
  }
  const [{ MongoDBContainer }, { RedisContainer }, { ApacheKafkaContainer, kafkaBrokers }] = await Promise.all([
    import('@testcontainers/mongodb'),
    import('@testcontainers/redis'),
    import('./support/apache-kafka-container.js'),
  ]);
  const starts = await Promise.allSettled([
    new ApacheKafkaContainer().start(),
    new MongoDBContainer('mongo:7').start(),
    new RedisContainer('redis:7').start(),
  ]);
  const started = starts.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const teardown = async () => {
    await Promise.all(started.map((container) => container.stop()));
  };
  const [kafka, mongo, redis] = starts;
  if (kafka?.status !== 'fulfilled' || mongo?.status !== 'fulfilled' || redis?.status !== 'fulfilled') {
    await teardown();
    throw starts.find((result) => result.status === 'rejected')?.reason;
  }
  const brokers = kafkaBrokers(kafka.value);
  try {
    await waitFor(() => kafkaAnswers([brokers]), {
      timeoutMs: 120_000,
      intervalMs: 250,
      timeoutMessage: `the apache/kafka container did not answer on ${brokers} within 120 s`,
    });
  } catch (error) {
    await teardown();
    throw error;
  }
  const servers: ProvidedServers = {
    KAFKA_BROKERS: brokers,
    // The container runs a one-member replica set whose member name only resolves inside Docker.
    MONGODB_URI: `${mongo.value.getConnectionString()}/?directConnection=true`,
    REDIS_URL: redis.value.getConnectionUrl(),
    source: 'docker',
  };
  return { servers, description: 'Docker (apache/kafka:4.1.1, mongo:7, redis:7 via testcontainers)', teardown };
}

/** 3. Otherwise the local stack, left running afterwards for the next run. */
async function fromLocalStack(): Promise<Chosen> {
  const env = await ensureStack();
  return {
    servers: { ...env, source: 'local-stack' },
    description: `the local stack (Kafka ${env.KAFKA_BROKERS}, MongoDB ${env.MONGODB_URI}, Redis ${env.REDIS_URL}; npm run stack:down stops it)`,
  };
}

/**
 * Vitest globalSetup of the integration project: chooses the servers once per run and provides
 * their addresses to every test file (see test/support/servers.ts).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const chosen = fromEnvironment() ?? (await fromDocker()) ?? (await fromLocalStack());
  project.provide('servers', chosen.servers);
  process.stderr.write(`integration tests use ${chosen.description}\n`);
  return chosen.teardown;
}
