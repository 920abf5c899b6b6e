import { describe, expect, it } from 'vitest';
import { readProjectorConfig, readQueryConfig } from './config.js';
import { ConfigError } from './env.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('reads a complete projector environment with defaults', () => {
    const config = readProjectorConfig({ KAFKA_BROKERS: '127.0.0.1:9092, kafka:9092', MONGODB_URI: 'mongodb://db:27017/' });
    expect(config.kafkaBrokers).toEqual(['127.0.0.1:9092', 'kafka:9092']);
    expect(config.topic).toBe('erp.order-events.v1');
    expect(config.consumerGroup).toBe('ossn-projector-erp.order-events.v1-v1');
    expect(config.stateCacheSize).toBe(50_000);
    expect(config.consumerSessionTimeoutMs).toBe(30_000);
    expect([config.fetchMaxBytesPerPartition, config.fetchMaxBytes]).toEqual([8 * 2 ** 20, 48 * 2 ** 20]);
    expect(config.store).toEqual({ mongodbUri: 'mongodb://db:27017/', database: 'ossn', readModelVersion: 1 });
  });

  it('names the topic in the default consumer group, so projectors of two topics never share one by default', () => {
    const servers = { KAFKA_BROKERS: 'kafka:9092', MONGODB_URI: 'mongodb://db:27017/' };
    expect(readProjectorConfig({ ...servers, OSSN_TOPIC: 'trial.events', READ_MODEL_VERSION: '3' }).consumerGroup).toBe('ossn-projector-trial.events-v3');
    expect(readProjectorConfig({ ...servers, OSSN_TOPIC: 'trial.events', OSSN_CONSUMER_GROUP: 'mine' }).consumerGroup).toBe('mine');
  });

  it('reports every bad value at once, each on its own line', () => {
    const problems = problemsOf(() =>
      readProjectorConfig({
        KAFKA_BROKERS: 'not a broker',
        MONGODB_URI: 'http://x',
        OSSN_TOPIC_PARTITIONS: 'six',
        OSSN_STATE_CACHE_SIZE: '-1',
        LOG_LEVEL: 'loud',
      }),
    );
    expect(problems).toEqual([
      'MONGODB_URI must be a mongodb or mongodb+srv URL, got http:',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'KAFKA_BROKERS must be a comma-separated host:port list, bad entries: not a broker',
      'OSSN_TOPIC_PARTITIONS must be an integer from 1 to 10000, got "six"',
      'OSSN_STATE_CACHE_SIZE must be an integer from 0 to 10000000, got "-1"',
    ]);
  });

  it("takes the fetch sizes in bytes, and refuses a whole fetch smaller than one partition's share", () => {
    const servers = { KAFKA_BROKERS: 'kafka:9092', MONGODB_URI: 'mongodb://db:27017/' };
    const sizes = (env: Record<string, string>) => {
      const { fetchMaxBytesPerPartition, fetchMaxBytes } = readProjectorConfig({ ...servers, ...env });
      return [fetchMaxBytesPerPartition, fetchMaxBytes];
    };
    const cases: [Record<string, string>, (number | undefined)[] | string[]][] = [
      [{ OSSN_FETCH_MAX_BYTES_PER_PARTITION: '1048576' }, [1_048_576, 48 * 2 ** 20]],
      [{ OSSN_FETCH_MAX_BYTES_PER_PARTITION: '2097152', OSSN_FETCH_MAX_BYTES: '2097152' }, [2_097_152, 2_097_152]],
      [{ OSSN_FETCH_MAX_BYTES: '4194304' }, ['OSSN_FETCH_MAX_BYTES (4194304) must be at least OSSN_FETCH_MAX_BYTES_PER_PARTITION (8388608)']],
      [{ OSSN_FETCH_MAX_BYTES_PER_PARTITION: '8MiB' }, ['OSSN_FETCH_MAX_BYTES_PER_PARTITION must be an integer from 65536 to 268435456, got "8MiB"']],
      [{ OSSN_FETCH_MAX_BYTES_PER_PARTITION: '1024' }, ['OSSN_FETCH_MAX_BYTES_PER_PARTITION must be an integer from 65536 to 268435456, got "1024"']],
    ];
    for (const [env, expected] of cases) {
      const problems = problemsOf(() => sizes(env));
      expect(problems.length > 0 ? problems : sizes(env), JSON.stringify(env)).toEqual(expected);
    }
  });

  it('names missing required variables', () => {
    expect(problemsOf(() => readQueryConfig({}))).toEqual(['MONGODB_URI is required (mongodb or mongodb+srv URL)']);
  });

  it('derives the public base URL from the port and strips a trailing slash when given', () => {
    expect(readQueryConfig({ MONGODB_URI: 'mongodb://x/', PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
    expect(readQueryConfig({ MONGODB_URI: 'mongodb://x/', PUBLIC_BASE_URL: 'https://ossn.example.com/' }).publicBaseUrl).toBe(
      'https://ossn.example.com',
    );
  });

  it('refuses a request timeout below a second and a connection cap of 0, one line each', () => {
    // The partner port's headers timeout is cut to the request timeout when that is shorter.
    const problems = problemsOf(() => readQueryConfig({ MONGODB_URI: 'mongodb://x/', REQUEST_TIMEOUT_MS: '999', MAX_CONNECTIONS: '0', MAX_CONNECTIONS_PER_ADDRESS: 'many' }));
    expect(problems).toEqual([
      'REQUEST_TIMEOUT_MS must be an integer from 1000 to 600000, got "999"',
      'MAX_CONNECTIONS must be an integer from 1 to 1000000, got "0"',
      'MAX_CONNECTIONS_PER_ADDRESS must be an integer from 1 to 1000000, got "many"',
    ]);
    expect(readQueryConfig({ MONGODB_URI: 'mongodb://x/' }).maxConnectionsPerAddress).toBe(32);
    expect(readQueryConfig({ MONGODB_URI: 'mongodb://x/', MAX_CONNECTIONS_PER_ADDRESS: '5' }).maxConnectionsPerAddress).toBe(5);
    // The least values allowed are taken as given.
    const least = readQueryConfig({ MONGODB_URI: 'mongodb://x/', REQUEST_TIMEOUT_MS: '1000', MAX_CONNECTIONS: '1' });
    expect([least.requestTimeoutMs, least.maxConnections]).toEqual([1000, 1]);
  });

  it("takes a replica set's connection string, its members listed, and refuses one the driver cannot read", () => {
    const uri = 'mongodb://127.0.0.1:20011,127.0.0.1:20012,127.0.0.1:20013/?replicaSet=rs-cluster';
    expect(readQueryConfig({ MONGODB_URI: uri }).store.mongodbUri).toBe(uri);
    expect(problemsOf(() => readQueryConfig({ MONGODB_URI: 'mongodb://user:s3cret@a:1,b:2/?replicaSet=rs&directConnection=true' }))).toEqual([
      'MONGODB_URI is not a MongoDB connection string (mongodb://host:port[,host:port...]/?replicaSet=name)',
    ]);
  });

  it('never echoes a URL that may carry a password', () => {
    for (const uri of ['ftp://user:s3cret@db/', 'mongodb://user:s3c:ret@db/', 'mongodb://user:s3cret@@db/']) {
      const problems = problemsOf(() => readQueryConfig({ MONGODB_URI: uri }));
      expect(problems).toHaveLength(1);
      expect(problems.join('\n')).not.toContain('s3cret');
    }
  });
});
