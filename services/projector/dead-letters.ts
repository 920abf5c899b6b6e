import { parseErpEvent } from '../../contracts/erp-events.js';
import { keyProblem } from '../../contracts/transport.js';
import type { OutgoingMessage, SourceMessage } from '../kafka/messages.js';
import type { DeadLetterReason } from '../metrics/projector-metrics.js';

/**
 * The kind of a dead letter's reason, for metrics and `ossn dlq list --reason`: a parse failure's
 * kind, a wrong key, or else the projection's refusal (e.g. a location never recorded). Worked
 * out again from the message (rare, cheap) so the projector's path stays as it is.
 */
export function deadLetterReason(message: Pick<SourceMessage, 'key' | 'value'>): DeadLetterReason {
  const parsed = parseErpEvent(message.value ?? Buffer.alloc(0));
  if (!parsed.ok) return parsed.kind;
  return keyProblem(message.key?.toString(), parsed.event) ? 'wrong-key' : 'rejected';
}

/** The event goes to the dead-letter topic unchanged; headers say why, where from and when. */
export function deadLetter(message: SourceMessage, reason: string, failedAt: Date): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      'x-error': reason,
      'x-error-kind': deadLetterReason(message),
      'x-source-topic': message.topic,
      'x-source-partition': String(message.partition),
      'x-source-offset': message.offset,
      'x-failed-at': failedAt.toISOString(),
    },
  };
}
