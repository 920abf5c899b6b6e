// When the read models differ from the reference fold, where the difference came from: for each
// sales order that differs, its events as the ERP had them acknowledged (in which batch), as the
// event topic and the dead-letter topic hold them (partition, offset), and its stored documents'
// sequences and resume marks. Without it a failed case says only that one state differs.
import { isDeepStrictEqual } from 'node:util';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { deadLetterTopic } from '../../../contracts/transport.js';
import { scanTopic } from '../../../services/adapters/kafka/read-topic.js';
import { readModelCollections } from '../../../services/adapters/mongodb/documents.js';
import type { BatchRecord } from './erp-stream.js';

interface StateLike {
  clientId: string;
  salesOrderNumber: string;
}

const keyOf = (s: StateLike) => `${s.clientId}:${s.salesOrderNumber}`;

/** The keys of the sales orders whose states differ between `stored` and `expected` (readModels' shape, through JSON). */
export function differingKeys(stored: unknown, expected: unknown): string[] {
  const keys = new Set<string>();
  for (const kind of ['statuses', 'shipments'] as const) {
    const mine = new Map(((stored as Record<string, StateLike[]>)[kind] ?? []).map((s) => [keyOf(s), s]));
    const theirs = new Map(((expected as Record<string, StateLike[]>)[kind] ?? []).map((s) => [keyOf(s), s]));
    for (const key of new Set([...mine.keys(), ...theirs.keys()])) if (!isDeepStrictEqual(mine.get(key), theirs.get(key))) keys.add(key);
  }
  return [...keys];
}

/** One event in a line: its sequence, type and what tells it apart. */
function describe(event: ErpEvent): string {
  const data = event.data as Record<string, unknown>;
  const detail = event.type === 'SalesOrderStatusChanged' ? `status ${String(data['statusId'])}` : event.type === 'PackageShipped' ? `package ${String(data['packageId'])}` : '';
  return `#${event.sequence} ${event.type}${detail ? ` (${detail})` : ''} ${event.eventId.slice(0, 8)}`;
}

/** The report, as lines; reads the topics whole (a few tens of thousands of events in the suite). */
export async function mismatchReport(options: {
  kafka: Kafka;
  topic: string;
  db: Db;
  stored: unknown;
  expected: unknown;
  acknowledged: ErpEvent[];
  batches: BatchRecord[];
}): Promise<string[]> {
  const keys = differingKeys(options.stored, options.expected).slice(0, 3);
  if (keys.length === 0) return [];
  const lines: string[] = [`sales orders differing: ${keys.join(', ')}`];
  const wanted = new Set(keys);
  const onTopic = new Map<string, string[]>();
  for (const topic of [options.topic, deadLetterTopic(options.topic)]) {
    await scanTopic(options.kafka, topic, (message) => {
      const text = message.value?.toString() ?? '';
      let event: ErpEvent | undefined;
      try {
        event = JSON.parse(text) as ErpEvent; // both topics hold events unchanged
      } catch {
        return;
      }
      const key = event && `${event.clientId}:${event.salesOrderNumber}`;
      if (!event || !key || !wanted.has(key)) return;
      const at = `${topic === options.topic ? '' : 'DLQ '}p${message.partition}@${message.offset} t${message.timestamp}`;
      onTopic.set(key, [...(onTopic.get(key) ?? []), `${at}: ${describe(event)}`]);
    }, { timeoutMs: 60_000 }).catch((error: Error) => lines.push(`reading ${topic} failed: ${error.message}`));
  }
  // The batch of each acknowledged event: batches are acknowledged in order, each adding its events.
  const batchOf = new Map<ErpEvent, number>();
  let index = 0;
  let left = options.batches[0]?.events ?? 0;
  for (const event of options.acknowledged) {
    while (left === 0 && index < options.batches.length - 1) left = options.batches[++index]!.events;
    batchOf.set(event, index);
    left--;
  }
  const collections = readModelCollections(options.db, 1);
  for (const key of keys) {
    const [clientId, salesOrderNumber] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    lines.push(`— ${key}`);
    const acked = options.acknowledged.filter((e) => e.clientId === clientId && e.salesOrderNumber === salesOrderNumber);
    lines.push(`  acknowledged (${acked.length}): ${acked.map((e) => `${describe(e)} [batch ${batchOf.get(e) ?? '?'}]`).join(' | ')}`);
    lines.push(`  on the topics (${onTopic.get(key)?.length ?? 0}): ${(onTopic.get(key) ?? []).join(' | ')}`);
    for (const [name, collection] of Object.entries(collections)) {
      const doc = (await collection.findOne({ clientId, salesOrderNumber } as never, { projection: { sequence: 1, resume: 1, statusId: 1 } })) as Record<string, unknown> | null;
      lines.push(`  stored ${name}: ${JSON.stringify(doc)}`);
    }
  }
  // The batches around the burst: how their sends went.
  for (const [n, b] of options.batches.entries()) {
    if (b.failedSends > 0 || b.events > 100) lines.push(`batch ${n}: ${b.events} events, first sent ${b.firstSentAt}, acknowledged ${b.acknowledgedAt}, failed sends: ${b.failures.join(' | ')}`);
  }
  return lines;
}
