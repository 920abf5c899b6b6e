import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { parseErpEvent, keyProblem } from '../../contracts/erp-events.js';
import { foldEventInto, type FoldResult } from '../../projections/fold.js';
import type { KafkaClient } from '../adapters/kafka/client.js';
import { scanTopic } from '../adapters/kafka/read-topic.js';
import { shipmentsStoreFields, type ReadModelCollections } from '../adapters/mongodb/documents.js';
import { heldOffsets } from '../adapters/mongodb/held-offsets.js';
import { orderStatusStoreFields } from '../../projections/polling/timed-documents.js';

export interface VerifyReport {
  /** Documents the fold of the whole topic yields, and those the rebuild wrote. */
  expected: { orderStatus: number; shipments: number };
  written: { orderStatus: number; shipments: number };
  sampled: number;
  /** Sales orders whose written documents differ from their fresh fold. */
  mismatches: string[];
  /** Reads of the topic: each folds one share of the sales orders, so memory holds only that share. */
  passes: number;
}

export function verified(report: VerifyReport): boolean {
  return (
    report.mismatches.length === 0 &&
    report.expected.orderStatus === report.written.orderStatus &&
    report.expected.shipments === report.written.shipments
  );
}

export interface VerifyOptions {
  /** Stop before these offsets: what the rebuild committed (or past them, what its documents hold: see heldOffsets). */
  until: Map<number, bigint>;
  /** Sales orders compared document by document, over all passes. */
  sampleSize?: number;
  /** Events folded in memory at once, at most about: the topic is read once per share of this size. */
  eventsPerPass?: number;
  onProgress?(read: number, total: number): void;
  /** Gives the check up (a Ctrl-C): the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A pass reads the whole topic: 10 minutes, and a minute more for every 500,000 events (a slow 8,000 a second). */
const passTimeoutMs = (events: number) => 600_000 + Math.ceil(events / 500_000) * 60_000;

/** Which pass folds a sales order: its key's hash, so every event of it falls in the same one. */
const passOf = (key: string, passes: number) => createHash('sha1').update(key).digest().readUInt32BE(0) % passes;

/** `size` of `items` (all when fewer) chosen at random, each as likely: a partial Fisher-Yates shuffle, which reorders `items`. */
function sample<T>(items: T[], size: number): T[] {
  const n = Math.min(size, items.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (items.length - i));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items.slice(0, n);
}

/**
 * Checks a rebuilt version against the events it was built from (the topic up to the offsets the
 * rebuild committed, or to those its documents hold where they hold more): its document counts against a fresh fold of all of them, and `sampleSize`
 * sales orders, chosen at random, document by document. The topic is streamed, never held: each
 * pass folds only the sales orders whose key hashes to it (a sales order's events share its key,
 * its partition and its pass), event by event, so memory holds the states of one share of the
 * sales orders, whatever the topic's length.
 */
export async function verifyRebuild(kafka: KafkaClient, topic: string, collections: ReadModelCollections, options: VerifyOptions): Promise<VerifyReport> {
  // A batch abandoned uncommitted at the rebuild's stop may still have been written: the
  // documents hold it, and a fold that stopped before it would find them ahead of their events.
  const held = await heldOffsets(collections);
  const until = new Map([...options.until].map(([partition, committed]) => [partition, (held.get(partition) ?? 0n) > committed ? held.get(partition)! : committed]));
  const total = Number([...until.values()].reduce((sum, end) => sum + end, 0n));
  const passes = Math.max(1, Math.ceil(total / (options.eventsPerPass ?? 500_000)));
  const perPass = Math.ceil((options.sampleSize ?? 200) / passes);
  const report: VerifyReport = { expected: { orderStatus: 0, shipments: 0 }, written: { orderStatus: 0, shipments: 0 }, sampled: 0, mismatches: [], passes };
  for (let pass = 0; pass < passes; pass++) {
    // The projector folds each partition in order, and a sales order's events share one partition.
    const fold: FoldResult = { orderStatus: new Map(), shipments: new Map(), rejected: [] };
    await scanTopic(
      kafka,
      topic,
      (message) => {
        const key = message.key?.toString();
        if (passes > 1 && passOf(key ?? '', passes) !== pass) return;
        const parsed = parseErpEvent(message.value ?? Buffer.alloc(0));
        // An event under another key than its own is dead-lettered by the projector: not folded.
        if (!parsed.ok || keyProblem(key, parsed.event)) return;
        foldEventInto(fold, parsed.event);
        fold.rejected.length = 0; // dead letters: not compared, not kept
      },
      { until, timeoutMs: passTimeoutMs(total), signal: options.signal, onProgress: (read) => options.onProgress?.(pass * total + read, passes * total) },
    );
    report.expected.orderStatus += fold.orderStatus.size;
    report.expected.shipments += fold.shipments.size;
    const keys = sample([...new Set([...fold.orderStatus.keys(), ...fold.shipments.keys()])], perPass);
    const [orderStatus, shipments] = await Promise.all([
      collections.orderStatus.find({ _id: { $in: keys } }, { projection: orderStatusStoreFields }).toArray(),
      collections.shipments.find({ _id: { $in: keys } }, { projection: shipmentsStoreFields }).toArray(),
    ]);
    const storedStatus = new Map(orderStatus.map(({ _id, ...state }) => [_id, state]));
    const storedShipments = new Map(shipments.map(({ _id, ...state }) => [_id, state]));
    report.sampled += keys.length;
    report.mismatches.push(
      ...keys.filter(
        (key) => !isDeepStrictEqual(storedStatus.get(key), fold.orderStatus.get(key)) || !isDeepStrictEqual(storedShipments.get(key), fold.shipments.get(key)),
      ),
    );
  }
  [report.written.orderStatus, report.written.shipments] = await Promise.all([collections.orderStatus.countDocuments(), collections.shipments.countDocuments()]);
  return report;
}
