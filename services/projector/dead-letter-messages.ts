import { parseErpEvent } from '../../contracts/erp-events.js';
import { keyProblem } from '../../contracts/transport.js';
import type { OutgoingMessage, SourceMessage } from '../adapters/kafka/messages.js';
import type { DeadLetterKind } from '../domain/dead-letters/dead-letter-records.js';
import { DeadLetterHeaders } from '../domain/dead-letters/headers.js';

/**
 * The kind of a dead letter, for metrics and `ossn dlq list --reason`: a parse failure's
 * kind, a wrong key, or else the projection's refusal (e.g. a location never recorded). Worked
 * out again from the message (rare, cheap) so the projector's path stays as it is.
 */
function deadLetterKind(message: Pick<SourceMessage, 'key' | 'value'>): DeadLetterKind {
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
      [DeadLetterHeaders.reason]: reason,
      [DeadLetterHeaders.kind]: deadLetterKind(message),
      [DeadLetterHeaders.sourceTopic]: message.topic,
      [DeadLetterHeaders.sourcePartition]: String(message.partition),
      [DeadLetterHeaders.sourceOffset]: message.offset,
      [DeadLetterHeaders.failedAt]: failedAt.toISOString(),
    },
  };
}

/** What a summary keeps of the value, the key and the reason: far below any broker's message limit. */
const summaryLimits = { valueBytes: 8_192, keyBytes: 1_024, reasonChars: 2_048 };

const cut = (bytes: Buffer | null, limit: number) => (bytes && bytes.length > limit ? bytes.subarray(0, limit) : bytes);

/**
 * The dead letter of a message the broker refused to take whole (too large for the dead-letter
 * topic): the same headers with the reason, and only the start of the key and value. `x-truncated`
 * says so and gives the original sizes; the whole event stays in its source topic at its offset.
 */
export function summaryDeadLetter(message: SourceMessage, reason: string, failedAt: Date, refusal: string): OutgoingMessage {
  const shortReason = reason.length > summaryLimits.reasonChars ? `${reason.slice(0, summaryLimits.reasonChars)}…` : reason;
  const letter = deadLetter(
    { ...message, key: cut(message.key, summaryLimits.keyBytes), value: cut(message.value, summaryLimits.valueBytes) },
    shortReason,
    failedAt,
  );
  letter.headers = {
    ...letter.headers,
    // Of the whole message: the cut value would no longer parse.
    [DeadLetterHeaders.kind]: deadLetterKind(message),
    [DeadLetterHeaders.truncated]: `the broker refused the whole dead letter (${refusal}): key of ${message.key?.length ?? 0} bytes and value of ${message.value?.length ?? 0} bytes cut to their first ${summaryLimits.keyBytes} and ${summaryLimits.valueBytes} bytes`,
  };
  return letter;
}
