import { eventKey, parseErpEvent } from '../../../contracts/erp-events.js';
import type { OutgoingMessage } from './messages.js';
import type { MessageProducer } from './producer.js';

export interface PublishReport {
  sent: number;
  refused: { line: number; errors: string[] }[];
}

/**
 * At most this many events, and this many bytes of them, are handed to the producer at once. Each
 * partition's share goes out as one record batch, which brokers refuse above message.max.bytes
 * (1 MiB by default) even when all the events fall in one partition; within that, the larger the
 * chunk the fewer requests (bench/publish.ts).
 */
export const publishChunk = { events: 2_500, bytes: 768 * 1024 };

/**
 * Publishes NDJSON events of the contract: each line is validated first, sent unchanged and keyed
 * `<clientId>:<salesOrderNumber>` (one partition per sales order, in order). Refused lines are
 * reported with their numbers and reasons; blank lines are skipped.
 */
export async function publishNdjson(
  lines: AsyncIterable<string> | Iterable<string>,
  producer: MessageProducer,
  topic: string,
  onProgress?: (report: PublishReport) => void,
): Promise<PublishReport> {
  const report: PublishReport = { sent: 0, refused: [] };
  let pending: OutgoingMessage[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    await producer.send(topic, pending);
    report.sent += pending.length;
    pending = [];
    pendingBytes = 0;
    onProgress?.(report);
  };
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    const parsed = parseErpEvent(line);
    if (!parsed.ok) {
      report.refused.push({ line: lineNumber, errors: parsed.errors });
      continue;
    }
    const key = eventKey(parsed.event.clientId, parsed.event.salesOrderNumber);
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(line);
    if (pending.length > 0 && pendingBytes + bytes > publishChunk.bytes) await flush();
    pending.push({ key, value: line });
    pendingBytes += bytes;
    if (pending.length >= publishChunk.events) await flush();
  }
  await flush();
  return report;
}

/** Sends nothing: what `checkNdjson` validates through. */
const nowhere: MessageProducer = { send: async () => undefined, close: async () => undefined };

/** publishNdjson's validation alone, sending nothing: `sent` counts the lines that would be sent. */
export function checkNdjson(lines: AsyncIterable<string> | Iterable<string>, onProgress?: (report: PublishReport) => void): Promise<PublishReport> {
  return publishNdjson(lines, nowhere, '', onProgress);
}
