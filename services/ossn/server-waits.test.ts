import { describe, expect, it } from 'vitest';
import { DeadlineExceededError } from '../plumbing/lifecycle/deadline.js';
import { mongoHosts, ServerUnreachableError } from './server-waits.js';

describe("naming a server that did not answer", () => {
  it.each<[string, string]>([
    ['mongodb://127.0.0.1:27017/', '127.0.0.1:27017'],
    ['mongodb://ops:hunter2@db-1:27017,db-2:27017/ossn?replicaSet=rs0', 'db-1:27017,db-2:27017'],
    ['mongodb+srv://ops:p%40ss@cluster0.example.net/?retryWrites=true', 'cluster0.example.net'],
    ['mongodb://db?replicaSet=rs0', 'db'],
    ['mongodb://ops:p@ss:word@db:27017', 'db:27017'],
  ])('%s: %s, never its user or password', (uri, hosts) => {
    expect(mongoHosts(uri)).toBe(hosts);
  });

  it('says the server, its variable and address, and why: the wait or the first line of the cause', () => {
    expect(new ServerUnreachableError('Kafka', 'KAFKA_BROKERS', 'k1:9092,k2:9092', 10_000, new DeadlineExceededError('Kafka', 10_000)).message).toBe(
      'Kafka at k1:9092,k2:9092 (KAFKA_BROKERS) did not answer within 10 s',
    );
    expect(new ServerUnreachableError('MongoDB', 'MONGODB_URI', 'db:27017', 10_000, new Error('connect ECONNREFUSED 10.0.0.1:27017\n  more')).message).toBe(
      'MongoDB at db:27017 (MONGODB_URI) did not answer: connect ECONNREFUSED 10.0.0.1:27017',
    );
  });
});
