import kafkajs from 'kafkajs';

// kafkajs is CommonJS: Node's ESM loader finds its error classes only on the default export.
const { KafkaJSProtocolError } = kafkajs;

/** Broker errors about the message itself (its size or form): sending it again cannot succeed. */
const refusedMessageTypes = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD']);

/** True when the broker refused what was sent, not because it is away or busy. */
export function isRefusedMessage(error: unknown): boolean {
  return error instanceof KafkaJSProtocolError && refusedMessageTypes.has(error.type);
}
