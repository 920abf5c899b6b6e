import type { OutgoingMessage, SourceMessage } from '../kafka/messages.js';

/** The event goes to the dead-letter topic unchanged; headers say why, where from and when. */
export function deadLetter(message: SourceMessage, reason: string, failedAt: Date): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      'x-error': reason,
      'x-source-topic': message.topic,
      'x-source-partition': String(message.partition),
      'x-source-offset': message.offset,
      'x-failed-at': failedAt.toISOString(),
    },
  };
}
