import type { ShipmentsState } from './state.js';

/** A sales order is complete when completed as a whole, or when it has locations and all are complete. */
export function salesOrderComplete(state: Pick<ShipmentsState, 'completedAsWhole' | 'locations'>): boolean {
  return state.completedAsWhole || (state.locations.length > 0 && state.locations.every((l) => l.complete));
}

/**
 * A purchase order is complete when every sales order of the same client carrying its number is.
 * Pass all of them (not only those in an answer); none at all is not a complete purchase order.
 */
export function purchaseOrderComplete(salesOrders: readonly Pick<ShipmentsState, 'complete'>[]): boolean {
  return salesOrders.length > 0 && salesOrders.every((so) => so.complete);
}
