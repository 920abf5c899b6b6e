import { eventKey, parseErpEvent } from '../../../contracts/erp-events.js';
import type { ParseFailureKind } from '../../../contracts/parse-erp-event.js';
import type { OutgoingMessage } from '../../adapters/kafka/messages.js';
import type { StoredMessage } from '../../adapters/kafka/read-topic.js';
import { DeadLetterHeaders, REDRIVEN_FROM_HEADER } from './headers.js';

/**
 * The kind of a dead letter (its `x-error-kind` header; its reason is the text in `x-error`): the
 * parse failure's kind, a wrong key, or the projection's refusal.
 */
export type DeadLetterKind = ParseFailureKind | 'wrong-key' | 'rejected';

/** A dead letter as an operator reads it: where it is, why it is there, where it came from. */
export interface DeadLetterRecord {
  /** `<partition>:<offset>` in the dead-letter topic: what `ossn dlq redrive` is given. */
  id: string;
  failedAt: Date;
  kind: string;
  reason: string;
  source: string;
  key: string | undefined;
  /** The event's eventId and type, when its value is JSON that carries them (a letter need not be an event). */
  eventId: string | undefined;
  eventType: string | undefined;
  message: StoredMessage;
}

/** eventId and type of a value that is a JSON object carrying them as strings. */
function eventIdentity(value: Buffer | null): { eventId: string | undefined; eventType: string | undefined } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value?.toString('utf8') ?? '');
  } catch {
    return { eventId: undefined, eventType: undefined };
  }
  const field = (name: string) => {
    const v = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[name] : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  return { eventId: field('eventId'), eventType: field('type') };
}

/** Oldest failure first; letters that failed in the same millisecond in the topic's order. */
export function inTimeOrder(records: readonly DeadLetterRecord[]): DeadLetterRecord[] {
  const position = (r: DeadLetterRecord) => [r.message.partition, BigInt(r.message.offset)] as const;
  return [...records].sort((a, b) => {
    const byTime = a.failedAt.getTime() - b.failedAt.getTime();
    if (byTime !== 0) return byTime;
    const [pa, oa] = position(a);
    const [pb, ob] = position(b);
    return pa - pb || (oa < ob ? -1 : oa > ob ? 1 : 0);
  });
}

export function toDeadLetterRecord(message: StoredMessage): DeadLetterRecord {
  const h = message.headers;
  return {
    id: `${message.partition}:${message.offset}`,
    failedAt: new Date(h[DeadLetterHeaders.failedAt] ?? Number(message.timestamp)),
    kind: h[DeadLetterHeaders.kind] ?? 'unknown',
    reason: h[DeadLetterHeaders.reason] ?? '',
    source: `${h[DeadLetterHeaders.sourcePartition] ?? '?'}:${h[DeadLetterHeaders.sourceOffset] ?? '?'}`,
    key: message.key?.toString(),
    ...eventIdentity(message.value),
    message,
  };
}

export interface DeadLetterFilter {
  kind?: string;
  since?: Date;
  until?: Date;
  ids?: Set<string>;
}

export function matches(record: DeadLetterRecord, filter: DeadLetterFilter): boolean {
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  if (filter.since !== undefined && record.failedAt < filter.since) return false;
  if (filter.until !== undefined && record.failedAt >= filter.until) return false;
  if (filter.ids !== undefined && !filter.ids.has(record.id)) return false;
  return true;
}

/**
 * The message that sends a dead letter back to the event topic: its value unchanged, keyed as
 * the contract wants when the value is an event (a dead letter for a wrong key then goes to its
 * sales order's partition), with a header naming the dead letter. The sequence rule makes a
 * second redrive of the same event change nothing.
 */
export function redriveMessage(record: DeadLetterRecord): OutgoingMessage {
  const { message } = record;
  const parsed = parseErpEvent(message.value ?? Buffer.alloc(0));
  return {
    key: parsed.ok ? eventKey(parsed.event.clientId, parsed.event.salesOrderNumber) : message.key,
    value: message.value,
    headers: { [REDRIVEN_FROM_HEADER]: record.id },
  };
}
