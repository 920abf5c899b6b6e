import type { OrderStatusState, ShipmentsState } from '../../projections/state.js';
import type { LoadedStates } from '../adapters/mongodb/writes.js';
import { noMarks, type ResumeMark } from '../../projections/resume-marks.js';

/** What the store held for one sales order after this projector's last write; absent: no document (or no mark). */
interface KnownStates {
  orderStatus?: OrderStatusState;
  shipments?: ShipmentsState;
  marks: { orderStatus?: ResumeMark; shipments?: ResumeMark };
}

/**
 * The states this projector last wrote, for the sales orders it saw most recently, so that a
 * batch reads from the store only the sales orders it has not seen (events of one sales order
 * come close together). An entry can go stale: another consumer wrote the document since (after
 * a rebalance). The stored sequence then is above the entry's, and what the projector does with
 * the entry is checked against the store:
 * - an event folded onto it makes a write guarded on the entry's sequence, which fails, and the
 *   batch is retried from the store;
 * - an event the fold rejects is not dead-lettered on its word: the projector folds the batch
 *   again from the store first;
 * - an event at or below the entry's sequence is below the stored one too: a duplicate either way.
 * The least recently used entries make room first; a capacity of 0 keeps nothing.
 */
export class StateCache {
  private readonly entries = new Map<string, KnownStates>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The states known for `keys`, and the keys whose states must be read from the store. */
  lookup(keys: string[]): { known: LoadedStates; missing: string[] } {
    const known = { orderStatus: new Map(), shipments: new Map(), marks: noMarks() } satisfies LoadedStates;
    const missing: string[] = [];
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (!entry) {
        missing.push(key);
        continue;
      }
      this.touch(key, entry);
      if (entry.orderStatus) known.orderStatus.set(key, entry.orderStatus);
      if (entry.shipments) known.shipments.set(key, entry.shipments);
      if (entry.marks.orderStatus) known.marks.orderStatus.set(key, entry.marks.orderStatus);
      if (entry.marks.shipments) known.marks.shipments.set(key, entry.marks.shipments);
    }
    return { known, missing };
  }

  /** Remembers the states of `keys` as the store holds them after a successful write. */
  remember(keys: string[], states: LoadedStates): void {
    for (const key of keys) {
      const marks = { orderStatus: states.marks?.orderStatus.get(key), shipments: states.marks?.shipments.get(key) };
      this.touch(key, { orderStatus: states.orderStatus.get(key), shipments: states.shipments.get(key), marks });
    }
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
    }
  }

  forget(keys: string[]): void {
    for (const key of keys) this.entries.delete(key);
  }

  /** Moves the entry to the most recently used end (a Map iterates in insertion order). */
  private touch(key: string, entry: KnownStates): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }
}
