// How long an `ossn` command waits for a server, and how it says one did not answer: naming the
// server, the variable that points at it and its address (never a password), in one line.
import { ErrorCodes, OssnError } from '../../contracts/errors/ossn-error.js';
import { createKafka, type KafkaClient } from '../adapters/kafka/client.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { DeadlineExceededError, withDeadline } from '../plumbing/lifecycle/deadline.js';
import type { Logger } from '../plumbing/logging/logger.js';

/** The longest a one-shot command (publish, dlq, credentials, setup) waits for a server to answer. */
export const serverWaitMs = 10_000;

/** Creating topics on a cluster that has just started may take retries (a controller elected meanwhile): longer than a question's wait. */
export const topicsWaitMs = 30_000;

export class ServerUnreachableError extends OssnError {
  constructor(server: string, variable: string, address: string, withinMs: number, cause: unknown) {
    const why =
      cause instanceof DeadlineExceededError ? ` within ${withinMs / 1000} s` : `: ${cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause)}`;
    super(ErrorCodes.SERVER_UNREACHABLE, `${server} at ${address} (${variable}) did not answer${why}`, { cause });
    this.name = 'ServerUnreachableError';
  }
}

/** The hosts of a MongoDB connection string, without its user, password or options. */
export function mongoHosts(uri: string): string {
  return uri.replace(/^mongodb(\+srv)?:\/\//i, '').replace(/^[^/?]*@/, '').split(/[/?]/)[0] ?? '';
}

/**
 * A Kafka client for a command that gives up: a few retries, so that work left behind by a
 * deadline ends soon after it and does not hold the process.
 */
export function commandKafka(brokers: string[], clientId: string, logger: Logger): KafkaClient {
  return createKafka(brokers, clientId, logger, { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 });
}

/** `work` against Kafka, or a ServerUnreachableError naming KAFKA_BROKERS once `ms` have passed or it failed. */
export async function askKafka<T>(brokers: string[], work: () => Promise<T>, ms = serverWaitMs): Promise<T> {
  try {
    return await withDeadline(work(), ms, 'Kafka');
  } catch (error) {
    throw new ServerUnreachableError('Kafka', 'KAFKA_BROKERS', brokers.join(','), ms, error);
  }
}

/** A connected MongoDB client, or a ServerUnreachableError naming MONGODB_URI's hosts. */
export async function connectMongoFor(command: string, uri: string, ms = serverWaitMs) {
  try {
    return await connectMongo(uri, `ossn-${command}`, { serverSelectionTimeoutMs: ms });
  } catch (error) {
    throw new ServerUnreachableError('MongoDB', 'MONGODB_URI', mongoHosts(uri), ms, error);
  }
}
