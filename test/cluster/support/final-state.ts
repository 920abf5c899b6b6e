// What the system should show once every acknowledged event is projected: the read models of the
// reference fold, and the view each polling partner should have accumulated.
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { foldEvents } from '../../../projections/fold.js';
import { readModels, reference } from '../../support/read-models.js';
import type { Partner, PollerView } from './partners.js';

/**
 * Waits until the store's read models equal the reference fold of `events` (every event projected
 * once: none lost, none applied twice), and returns both as last read, equal or not after `timeoutMs`.
 */
export async function untilProjected(db: Db, events: ErpEvent[], timeoutMs: number) {
  const expected = reference(events);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Through JSON, as the states are compared: Dates as their ISO text, absent fields absent.
    const stored = JSON.parse(JSON.stringify(await readModels(db))) as unknown;
    const wanted = JSON.parse(JSON.stringify(expected)) as unknown;
    if (isDeepStrictEqual(stored, wanted) || Date.now() > deadline) return { stored, expected: wanted };
    await sleep(500);
  }
}

/** The view a poller of `partner` should hold once it has polled after the last event was projected. */
export function expectedView(events: ErpEvent[], partner: Partner): Pick<PollerView, 'statuses' | 'shipments'> {
  const fold = foldEvents(events);
  const mine = (key: string) => partner.clientIds.includes(key.slice(0, key.indexOf(':')));
  const statuses = new Map(
    [...fold.orderStatus].filter(([key]) => mine(key)).map(([key, s]) => [key, { statusID: s.statusId ?? Number.NaN, validTimestamp: s.validTimestamp?.getTime() ?? Number.NaN }]),
  );
  // A poll answers only sales orders with something to tell: packages, or a completed location.
  const shipments = new Map(
    [...fold.shipments]
      .filter(([key, s]) => mine(key) && ((s.locations[0]?.packages.length ?? 0) > 0 || s.locations[0]?.complete))
      .map(([key, s]) => [key, { packages: new Set(s.locations[0]!.packages.map((p) => p.packageId)), complete: s.locations[0]!.complete }]),
  );
  return { statuses, shipments };
}

/** What a poller accumulated, in expectedView's shape (a shipments poller's sales orders without news left out). */
export function heldView(view: PollerView): Pick<PollerView, 'statuses' | 'shipments'> {
  return { statuses: view.statuses, shipments: new Map([...view.shipments].filter(([, s]) => s.packages.size > 0 || s.complete)) };
}

/**
 * How many of `events` the store shows no trace of yet: those above the highest sequence either
 * read model of their sales order has applied (a projector applies a sales order's events in
 * order, so these are certainly unprojected).
 */
export async function unprojectedCount(db: Db, events: ErpEvent[]): Promise<number> {
  const { statuses, shipments } = await readModels(db);
  const applied = new Map<string, number>();
  for (const state of [...statuses, ...shipments]) {
    const key = `${state.clientId}:${state.salesOrderNumber}`;
    applied.set(key, Math.max(applied.get(key) ?? 0, state.sequence));
  }
  return events.filter((e) => e.sequence > (applied.get(`${e.clientId}:${e.salesOrderNumber}`) ?? 0)).length;
}

/** Resolves with the time once the store shows every one of `events` applied; rejects after `timeoutMs`. */
export async function untilApplied(db: Db, events: ErpEvent[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await unprojectedCount(db, events).catch(() => Number.NaN);
    if (left === 0) return Date.now();
    if (Date.now() > deadline) throw new Error(`${Number.isNaN(left) ? 'the store did not answer' : `${left} events still unprojected`} after ${timeoutMs} ms`);
    await sleep(200);
  }
}
