import { isDeepStrictEqual } from 'node:util';
import { parseErpEvent, keyProblem, type ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import type { StoredMessage } from '../kafka/read-topic.js';
import { shipmentsStoreFields, type ReadModelCollections } from '../read-model-store/documents.js';

export interface VerifyReport {
  /** Documents the fold of the whole topic yields, and those the rebuild wrote. */
  expected: { orderStatus: number; shipments: number };
  written: { orderStatus: number; shipments: number };
  sampled: number;
  /** Sales orders whose written documents differ from their fresh fold. */
  mismatches: string[];
}

export function verified(report: VerifyReport): boolean {
  return (
    report.mismatches.length === 0 &&
    report.expected.orderStatus === report.written.orderStatus &&
    report.expected.shipments === report.written.shipments
  );
}

function sample<T>(items: T[], size: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, size);
}

/**
 * Checks a rebuilt version against the events it was built from (the topic up to the offsets the
 * rebuild committed, the rebuild stopped): its document counts against a fresh fold of all of
 * them, and `sampleSize` sales orders, chosen at random, document by document.
 */
export async function verifyRebuild(messages: StoredMessage[], collections: ReadModelCollections, sampleSize = 200): Promise<VerifyReport> {
  const events: ErpEvent[] = [];
  for (const message of messages) {
    const parsed = parseErpEvent(message.value ?? Buffer.alloc(0));
    if (parsed.ok && !keyProblem(message.key?.toString(), parsed.event)) events.push(parsed.event);
  }
  // The projector folds each partition in order, and a sales order's events share one partition.
  const fold = foldEvents(events);
  const keys = sample([...new Set([...fold.orderStatus.keys(), ...fold.shipments.keys()])], sampleSize);
  const [orderStatus, shipments, written] = await Promise.all([
    collections.orderStatus.find({ _id: { $in: keys } }, { projection: { changedAt: 0 } }).toArray(),
    collections.shipments.find({ _id: { $in: keys } }, { projection: shipmentsStoreFields }).toArray(),
    Promise.all([collections.orderStatus.countDocuments(), collections.shipments.countDocuments()]),
  ]);
  const storedStatus = new Map(orderStatus.map(({ _id, ...state }) => [_id, state]));
  const storedShipments = new Map(shipments.map(({ _id, ...state }) => [_id, state]));
  const mismatches = keys.filter(
    (key) =>
      !isDeepStrictEqual(storedStatus.get(key), fold.orderStatus.get(key)) || !isDeepStrictEqual(storedShipments.get(key), fold.shipments.get(key)),
  );
  return {
    expected: { orderStatus: fold.orderStatus.size, shipments: fold.shipments.size },
    written: { orderStatus: written[0], shipments: written[1] },
    sampled: keys.length,
    mismatches,
  };
}
