import type { Document } from 'mongodb';
import type { ReadModelCollections } from './documents.js';

/**
 * Per partition, the offset after the last event the version's documents hold, by their resume
 * marks (projections/resume-marks.ts). A batch written and not committed (abandoned at a stop,
 * its write still landing) puts it past the group's committed offset.
 */
export async function heldOffsets(collections: ReadModelCollections): Promise<Map<number, bigint>> {
  const pipeline: Document[] = [{ $match: { 'resume.partition': { $exists: true } } }, { $group: { _id: '$resume.partition', through: { $max: '$resume.through' } } }];
  const found = await Promise.all([collections.orderStatus, collections.shipments].map((c) => c.aggregate<{ _id: number; through: number }>(pipeline).toArray()));
  const held = new Map<number, bigint>();
  for (const { _id: partition, through } of found.flat()) {
    const after = BigInt(through) + 1n;
    if (after > (held.get(partition) ?? 0n)) held.set(partition, after);
  }
  return held;
}
