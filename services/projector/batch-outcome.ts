import type { ErpEvent } from '../../contracts/erp-events.js';
import { documentId } from '../adapters/mongodb/documents.js';
import type { LoadedStates } from '../../projections/batch.js';

export interface BatchOutcome<T> {
  /** Events that changed a read model, with their sources (for the freshness of each). */
  applied: T[];
  /** At the sequence already applied to their sales order: a redelivery or a re-sent dead letter. */
  duplicate: number;
  /** Below it: an old event replayed. */
  stale: number;
}

/**
 * What the sequence rule did with each event of a batch folded onto `loaded` (pure): the shipments
 * state follows every event of its sales order, so the higher of the two states' sequences is the
 * last one applied. Rejected events (dead-lettered) are neither applied nor skipped.
 */
export function batchOutcome<T>(loaded: LoadedStates, items: { event: ErpEvent; source: T }[], rejected: ReadonlySet<T>): BatchOutcome<T> {
  const last = new Map<string, number>();
  const outcome: BatchOutcome<T> = { applied: [], duplicate: 0, stale: 0 };
  for (const { event, source } of items) {
    if (rejected.has(source)) continue;
    const key = documentId(event.clientId, event.salesOrderNumber);
    const current = last.get(key) ?? Math.max(loaded.orderStatus.get(key)?.sequence ?? 0, loaded.shipments.get(key)?.sequence ?? 0);
    if (event.sequence === current) outcome.duplicate++;
    else if (event.sequence < current) outcome.stale++;
    else {
      outcome.applied.push(source);
      last.set(key, event.sequence);
    }
  }
  return outcome;
}
