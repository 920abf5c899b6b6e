// A batch of the projector as its pure steps see it (services/projector/): the states loaded for
// its sales orders, and what folding it changed. The MongoDB adapter loads the one and writes the other.
import type { ResumeMark, ResumeMarks } from './resume-marks.js';
import type { OrderStatusState, ShipmentsState } from './state.js';

/** A read model's state for one sales order before and after a batch; before is absent for a new one. */
export interface StateChange<S> {
  before?: S;
  after: S;
  /** What the document will hold of its partition (resume-marks.ts): written with it. */
  mark?: ResumeMark;
}

export interface BatchEffects {
  orderStatus: StateChange<OrderStatusState>[];
  shipments: StateChange<ShipmentsState>[];
}

/**
 * Every change moves its document's sequence forward: the sequence guard holds a write to the
 * state it was folded on, and a change that does not advance reads as a guard that missed, which
 * would be retried for ever. Throws, naming the sales order, on the first that does not (only a
 * defective projection makes one).
 */
export function requireAdvancing(effects: BatchEffects): void {
  for (const { before, after } of [...effects.orderStatus, ...effects.shipments]) {
    if (before && !(after.sequence > before.sequence)) {
      throw new Error(`${after.clientId}:${after.salesOrderNumber}: a change from sequence ${before.sequence} to ${after.sequence} does not advance it`);
    }
  }
}

export interface LoadedStates {
  orderStatus: Map<string, OrderStatusState>;
  shipments: Map<string, ShipmentsState>;
  /** The stored documents' resume marks, where they have one. */
  marks?: ResumeMarks;
}
