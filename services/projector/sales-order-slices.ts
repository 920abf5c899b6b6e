import type { ErpEvent } from '../../contracts/erp-events.js';
import { documentId } from '../adapters/mongodb/documents.js';
import type { BatchEffects, LoadedStates } from '../adapters/mongodb/writes.js';

// A batch cut into its sales orders: their events, states and effects are independent of each
// other's, so one can be folded or written alone to find the event that fails.

const salesOrderOf = (event: ErpEvent): string => documentId(event.clientId, event.salesOrderNumber);

/** The items of each sales order, in batch order. */
export function bySalesOrder<T extends { event: ErpEvent }>(items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = salesOrderOf(item.event);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

export function statesOf(states: LoadedStates, key: string): LoadedStates {
  const orderStatus = states.orderStatus.get(key);
  const shipments = states.shipments.get(key);
  const only = <V>(value: V | undefined) => new Map<string, V>(value ? [[key, value]] : []);
  return {
    orderStatus: only(orderStatus),
    shipments: only(shipments),
    marks: { orderStatus: only(states.marks?.orderStatus.get(key)), shipments: only(states.marks?.shipments.get(key)) },
  };
}

export function effectsOf(effects: BatchEffects, key: string): BatchEffects {
  const mine = ({ after }: { after: { clientId: string; salesOrderNumber: string } }) => documentId(after.clientId, after.salesOrderNumber) === key;
  return { orderStatus: effects.orderStatus.filter(mine), shipments: effects.shipments.filter(mine) };
}

export const hasEffects = (effects: BatchEffects): boolean => effects.orderStatus.length + effects.shipments.length > 0;
