// The one list of the headers a dead letter carries (written by the projector, read back by
// `ossn dlq`, a rebuild and the projector's metrics), and the header of a redriven event.
export const DeadLetterHeaders = {
  /** Why the event was refused, as a sentence (the projector's reason text). */
  reason: 'x-error',
  /** The kind of that reason: a parse failure's kind, `wrong-key` or `rejected` (`ossn dlq list --reason`). */
  kind: 'x-error-kind',
  /** Where the event is in its source topic. */
  sourceTopic: 'x-source-topic',
  sourcePartition: 'x-source-partition',
  sourceOffset: 'x-source-offset',
  /** When the projector gave up on it (ISO 8601). */
  failedAt: 'x-failed-at',
  /** Present on a summary of a dead letter the broker refused whole: what was cut, and why. */
  truncated: 'x-truncated',
} as const;

/** On an event sent back to the event topic by `ossn dlq redrive`: the id of its dead letter. */
export const REDRIVEN_FROM_HEADER = 'x-redriven-from';
