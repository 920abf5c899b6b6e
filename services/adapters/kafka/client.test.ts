// The level each kafkajs log entry is written at in our logs.
import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaLogLevel } from './client.js';

describe('kafkaLogLevel', () => {
  it.each([
    // A new topic's leaders and a new group's coordinator, which kafkajs retries itself.
    [logLevel.ERROR, 'Response Metadata(key: 3, version: 6)', { error: 'This server is not the leader for that topic-partition' }, 'debug'],
    [logLevel.ERROR, 'Response ListOffsets(key: 2, version: 3)', { error: 'There is no leader for this topic-partition as we are in the middle of a leadership election' }, 'debug'],
    [logLevel.ERROR, 'Response FindCoordinator(key: 10, version: 2)', { error: "The coordinator is loading and hence can't process requests for this group" }, 'debug'],
    [logLevel.ERROR, 'Response FindCoordinator(key: 10, version: 2)', { error: 'The group coordinator is not available' }, 'debug'],
    [logLevel.ERROR, 'Response JoinGroup(key: 11, version: 5)', { error: 'The group is rebalancing, so a rejoin is needed' }, 'debug'],
    [logLevel.WARN, 'The group is rebalancing, re-joining', {}, 'info'],
    // What is no transient keeps its level.
    [logLevel.ERROR, 'Response SaslAuthenticate(key: 36, version: 1)', { error: 'Authentication failed' }, 'error'],
    [logLevel.ERROR, 'Response Produce(key: 0, version: 7)', { error: 'The request included a message larger than the max message size the server will accept' }, 'error'],
    [logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', { error: 'This server is not the leader for that topic-partition' }, 'error'],
    [logLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded: The group coordinator is not available', {}, 'error'],
    [logLevel.WARN, 'KafkaJS v2.0.0 switched default partitioner.', {}, 'warn'],
  ] as const)('%i %s %o → %s', (level, message, extra, expected) => {
    expect(kafkaLogLevel(level, message, extra)).toBe(expected);
  });

  it('drops the warning our bounded idempotent producers answer by design', () => {
    expect(kafkaLogLevel(logLevel.WARN, 'Limiting retries for the idempotent producer may invalidate EoS guarantees', {})).toBeUndefined();
  });
});
