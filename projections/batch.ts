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

export interface LoadedStates {
  orderStatus: Map<string, OrderStatusState>;
  shipments: Map<string, ShipmentsState>;
  /** The stored documents' resume marks, where they have one. */
  marks?: ResumeMarks;
}
