import { eventKey, parseErpEvent } from '../../../contracts/erp-events.js';
import type { OutgoingMessage } from './messages.js';
import type { MessageProducer } from './producer.js';

export interface PublishReport {
  sent: number;
  refused: { line: number; errors: string[] }[];
}

const chunkSize = 500;

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
  const flush = async () => {
    await producer.send(topic, pending);
    report.sent += pending.length;
    pending = [];
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
    pending.push({ key: eventKey(parsed.event.clientId, parsed.event.salesOrderNumber), value: line });
    if (pending.length >= chunkSize) await flush();
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
